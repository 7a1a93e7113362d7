/* json.h - the json codec: animkit's own JSON form (schema version 1, as
 * core/json.c writes it and README.md documents it), read and written
 * losslessly so that a document can travel through a text editor. */
#ifndef ANIMKIT_JSON_PLUGIN_H
#define ANIMKIT_JSON_PLUGIN_H

#include <animkit/plugin.h>

/* Inputs larger than this are refused before parsing (jansson's tree takes
 * several times the text). */
#define JSON_MAX_INPUT ((size_t)256 << 20)

const ak_codec *json_codec(void);

ak_status json_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc);
/* bound.c: an upper bound of the memory jansson's tree of `text` takes. */
size_t json_tree_bound(const unsigned char *text, size_t size);
ak_status json_write(ak_job *job, const ak_doc *doc, ak_sink *out);

/* The byte offset of the value at `path` ("clips[2].tracks[5].rotation[7]",
 * "document.props.x"), or of the deepest part of it that exists. */
int64_t json_locate(const unsigned char *bytes, size_t size, const char *path);

#endif
