/* The web page's path in the property test (issue 25 item 7: the C API, the CLI, Python and
 * the web page give byte-identical JSON for the same scenario).
 *
 *   node test/web/properties.js SCENARIOS.jsonl [WEBDIR]
 *
 * SCENARIOS.jsonl: test/properties.py --web-out's lines, each a scenario (a preset and its
 * settings as text, in order) and the C API's answer through libllmmem.so (status, and the
 * result JSON or the error). Each is run through the page's own layer, WEBDIR/llmmem-api.js
 * (default examples/web), over the WebAssembly library (llmmem.js + llmmem.wasm, make web),
 * as the page does: the preset by llmmem_model_from_pretrained, each setting by
 * llmmem_config_set. The result JSON must be the same bytes; a refusal the same status and
 * message. Plain Node, no browser: test/web/properties.sh runs it (make check-web: all
 * 10,000).
 */
"use strict";
const fs = require("fs");
const path = require("path");

const [file, webdirArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: node test/web/properties.js SCENARIOS.jsonl [WEBDIR]");
  process.exit(2);
}
const webdir = path.resolve(webdirArg || path.join(__dirname, "..", "..", "examples", "web"));
if (!fs.existsSync(path.join(webdir, "llmmem.wasm"))) {
  console.error("FAIL: " + path.join(webdir, "llmmem.wasm") + " missing: run make web");
  process.exit(1);
}

(async () => {
  const LlmmemApi = require(path.join(webdir, "llmmem-api.js"));
  const api = await LlmmemApi.load(require(path.join(webdir, "llmmem.js")),
                                   { wasmBinary: fs.readFileSync(path.join(webdir, "llmmem.wasm")) });
  const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l);
  let fails = 0;
  const counts = {};
  const fail = (msg) => {
    fails++;
    if (fails <= 30) console.log("FAIL " + msg);
  };
  lines.forEach((line, i) => {
    const s = JSON.parse(line);
    const tag = "scenario " + i + ": " + s.preset + " " + s.settings.map(([k, v]) => k + "=" + v).join(" ");
    let status, text;
    try {
      status = "OK";
      text = api.estimate({ preset: s.preset }, s.settings).json;
    } catch (e) {
      if (!(e instanceof api.LlmmemError)) throw e;
      status = e.statusName;
      text = e.detail;
    }
    counts[status] = (counts[status] || 0) + 1;
    if (status !== s.status) fail(tag + ": web " + status + " / C " + s.status + ": " + String(text).slice(0, 200));
    else if (text !== s.text)
      fail(tag + (status === "OK" ? ": the result JSON differs from the C API's" : ": the error differs: " + text + " | " + s.text));
  });
  const summary = Object.keys(counts).sort().map((k) => k + " " + counts[k]).join(", ");
  console.log("web properties: " + lines.length + " scenarios (" + summary + ") through examples/web's llmmem-api.js " +
              "and the WebAssembly library against the C API; " + fails + " failing");
  process.exit(fails || lines.length === 0 ? 1 : 0);
})().catch((e) => {
  console.error("FAIL: " + (e && e.stack ? e.stack : e));
  process.exit(1);
});
