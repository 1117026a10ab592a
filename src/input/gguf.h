/* The GGUF reader (gguf.c) and the mapping of its metadata onto a model
 * (gguf_arch.c). Not installed. */
#ifndef LLMMEM_INPUT_GGUF_H
#define LLMMEM_INPUT_GGUF_H

#include "model/gguf.h"
#include "model/model.h"

/* gguf_type (ggml/include/gguf.h) */
enum llmmem__gguf_vtype {
    LLMMEM__GGUF_T_UINT8 = 0, LLMMEM__GGUF_T_INT8, LLMMEM__GGUF_T_UINT16, LLMMEM__GGUF_T_INT16,
    LLMMEM__GGUF_T_UINT32, LLMMEM__GGUF_T_INT32, LLMMEM__GGUF_T_FLOAT32, LLMMEM__GGUF_T_BOOL,
    LLMMEM__GGUF_T_STRING, LLMMEM__GGUF_T_ARRAY, LLMMEM__GGUF_T_UINT64, LLMMEM__GGUF_T_INT64,
    LLMMEM__GGUF_T_FLOAT64, LLMMEM__GGUF_T_COUNT
};

/* One metadata key/value as it lies in the buffer. */
typedef struct llmmem__gguf_kv {
    const char *key; /* into the buffer, not NUL-terminated */
    size_t key_len;
    uint32_t type;   /* enum llmmem__gguf_vtype */
    uint32_t elem;   /* the element type of an array, else = type */
    uint64_t count;  /* array elements, else 1 */
    size_t value;    /* byte offset of the (first) value */
} llmmem__gguf_kv;

/* A parsed header: the tensors (g, handed to the model) and the key table,
 * which points into the caller's buffer. */
typedef struct llmmem__gguf_doc {
    const void *data;
    size_t len;
    const char *src;
    llmmem__gguf *g;
    llmmem__gguf_kv *kv;
    uint64_t n_kv;
    size_t header_end;
} llmmem__gguf_doc;

/* Parses the header in data[0, len). file_size: the whole file's size when data is
 * only its start (0: data is the whole file). LLMMEM_E_PARSE (or _UNSUPPORTED for
 * GGUF v1) naming "source: byte N: ..."; LLMMEM_E_BUFFER_TOO_SMALL when the header
 * goes on past len. On failure d holds nothing. */
int llmmem__gguf_parse(llmmem__gguf_doc *d, const void *data, size_t len, uint64_t file_size,
                       const char *source);
/* Reads as much of a file as its header needs and parses it; *buf (the caller frees it)
 * holds the bytes d points into. */
int llmmem__gguf_parse_file(llmmem__gguf_doc *d, uint8_t **buf, const char *path);
void llmmem__gguf_doc_free(llmmem__gguf_doc *d);
const llmmem__gguf_kv *llmmem__gguf_find(const llmmem__gguf_doc *d, const char *key);
uint64_t llmmem__gguf_raw(const llmmem__gguf_doc *d, size_t at, int bytes);
uint32_t llmmem__gguf_type_size(uint32_t type);
const char *llmmem__gguf_type_name(uint32_t type);

/* The model a parsed header describes (gguf_arch.c): llama.cpp's hyperparameters into
 * d->g->hp, the architecture onto the registry; the model takes d->g. */
int llmmem__gguf_model(struct llmmem_model **out, llmmem__gguf_doc *d);

#endif /* LLMMEM_INPUT_GGUF_H */
