/* read.c - the glTF reader: the container (.glb chunks or .gltf text), the
 * JSON, the buffers (GLB BIN chunk, data: URIs), then nodes.c and clips.c.
 * Errors give the byte offset of the container field, or the JSON path of
 * the offending value. */
#include "parse.h"

#include <string.h>

#define GLB_JSON 0x4e4f534au
#define GLB_BIN 0x004e4942u

int gr_int(gr *r, const json_t *obj, const char *field, json_int_t lo, json_int_t hi, json_int_t *out,
           const char *where)
{
    const json_t *v = json_object_get(obj, field);
    if (json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi) {
        *out = json_integer_value(v);
        return 1;
    }
    ak_fail(r->job, AK_E_DATA, -1, "%s.%s: %s", where, field,
            v ? "not an integer in range" : "missing");
    return 0;
}

/* An optional array of exactly n numbers; 1 when absent (out untouched). */
int gr_numbers(gr *r, const json_t *obj, const char *field, double *out, size_t n, const char *where)
{
    const json_t *a = json_object_get(obj, field);
    if (!a)
        return 1;
    if (!json_is_array(a) || json_array_size(a) != n) {
        ak_fail(r->job, AK_E_DATA, -1, "%s.%s: expected %zu numbers", where, field, n);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (!gltf_number_value(json_array_get(a, i), &out[i]) || json_is_string(json_array_get(a, i))) {
            ak_fail(r->job, AK_E_DATA, -1, "%s.%s[%zu]: not a number", where, field, i);
            return 0;
        }
    return 1;
}

/* The JSON chunk and BIN chunk of a .glb (GLB spec: 12-byte header, then
 * chunks of length + type, 4-byte aligned). */
static ak_status glb_chunks(gr *r, const unsigned char *bytes, size_t size, const unsigned char **json,
                            size_t *json_size)
{
    ak_reader in;
    ak_reader_init(&in, r->job, bytes, size);
    ak_skip(&in, 8, "glb header");
    uint32_t length = ak_u32(&in);
    if (in.failed)
        return AK_E_DATA;
    if (length > size || length < 20)
        return ak_fail(r->job, AK_E_DATA, 8, "glb length %u does not fit the %zu-byte file", length, size);
    in.size = length;
    uint32_t jlen = ak_u32(&in), jtype = ak_u32(&in);
    if (in.failed)
        return AK_E_DATA;
    if (jtype != GLB_JSON)
        return ak_fail(r->job, AK_E_DATA, 16, "the first glb chunk is not JSON");
    *json = ak_bytes(&in, jlen, "glb JSON chunk");
    *json_size = jlen;
    if (!*json)
        return AK_E_DATA;
    while (ak_remaining(&in) >= 8) {
        size_t at = in.pos;
        uint32_t blen = ak_u32(&in), btype = ak_u32(&in);
        const unsigned char *data = ak_bytes(&in, blen, "glb chunk");
        if (!data)
            return AK_E_DATA;
        if (btype == GLB_BIN && !r->g.bin) {
            r->g.bin = data;
            r->g.bin_size = blen;
        } else if (btype == GLB_BIN) {
            return ak_fail(r->job, AK_E_DATA, (int64_t)at, "a second glb BIN chunk");
        }
    }
    return AK_OK;
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* The bytes of a data: URI with base64 content. */
static ak_status data_uri(gr *r, const char *uri, size_t i, const unsigned char **out, size_t *size)
{
    const char *comma = strchr(uri, ',');
    if (!comma || comma - uri < 7 || strncmp(comma - 7, ";base64", 7) != 0)
        return ak_fail(r->job, AK_E_DATA, -1, "buffers[%zu].uri: a data: URI must be base64", i);
    const unsigned char *p = (const unsigned char *)comma + 1;
    size_t n = strlen((const char *)p);
    unsigned char *buf = ak_job_alloc(r->job, n / 4 * 3 + 3, 1);
    if (!buf)
        return AK_E_NOMEM;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t k = 0; k < n && p[k] != '='; k++) {
        int v = b64_value(p[k]);
        if (v < 0)
            return ak_fail(r->job, AK_E_DATA, -1, "buffers[%zu].uri: bad base64 at character %zu", i, k);
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[o++] = (unsigned char)(acc >> bits);
        }
    }
    *out = buf;
    *size = o;
    return AK_OK;
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A .bin beside the input: the URI percent-decoded, read through the core,
 * which refuses anything but plain relative names in the input's folder. */
static ak_status external_buffer(gr *r, const char *uri, const char *where, const unsigned char **data, size_t *size)
{
    size_t n = strlen(uri);
    char *name = ak_job_alloc(r->job, n + 1, 1);
    if (!name)
        return AK_E_NOMEM;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int hi = uri[i] == '%' && i + 2 < n + 1 ? hex_value(uri[i + 1]) : -1;
        int lo = hi >= 0 ? hex_value(uri[i + 2]) : -1;
        if (uri[i] == '%' && (lo < 0 || (hi == 0 && lo == 0)))
            return ak_fail(r->job, AK_E_DATA, -1, "%s.uri: bad percent escape", where);
        if (uri[i] == '%') {
            name[o++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            name[o++] = uri[i];
        }
    }
    name[o] = '\0';
    ak_status st = ak_job_read_sibling(r->job, name, data, size);
    ak_job_free(r->job, name);
    return st;
}

static ak_status load_buffers(gr *r)
{
    const json_t *buffers = json_object_get(r->root, "buffers");
    if (buffers && !json_is_array(buffers))
        return ak_fail(r->job, AK_E_DATA, -1, "buffers: not an array");
    size_t n = json_array_size(buffers);
    r->g.buffer_count = n;
    r->g.buffers = ak_job_alloc(r->job, n ? n : 1, sizeof *r->g.buffers);
    r->g.buffer_sizes = ak_job_alloc(r->job, n ? n : 1, sizeof *r->g.buffer_sizes);
    if (!r->g.buffers || !r->g.buffer_sizes)
        return AK_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const json_t *b = json_array_get(buffers, i);
        char where[32];
        snprintf(where, sizeof where, "buffers[%zu]", i);
        json_int_t length;
        if (!gr_int(r, b, "byteLength", 1, INT64_MAX, &length, where))
            return AK_E_DATA;
        const json_t *uri = json_object_get(b, "uri");
        const unsigned char *data = NULL;
        size_t size = 0;
        if (!uri && i == 0 && r->g.bin) {
            data = r->g.bin;
            size = r->g.bin_size;
        } else if (json_is_string(uri) && strncmp(json_string_value(uri), "data:", 5) == 0) {
            ak_status st = data_uri(r, json_string_value(uri), i, &data, &size);
            if (st != AK_OK)
                return st;
        } else if (json_is_string(uri)) {
            ak_status st = external_buffer(r, json_string_value(uri), where, &data, &size);
            if (st != AK_OK)
                return st;
        } else {
            return ak_fail(r->job, AK_E_DATA, -1, "%s: no uri and no glb BIN chunk", where);
        }
        if ((uint64_t)length > size)
            return ak_fail(r->job, AK_E_DATA, -1, "%s.byteLength: %lld bytes, but only %zu present", where,
                           (long long)length, size);
        r->g.buffers[i] = data;
        r->g.buffer_sizes[i] = (size_t)length;
    }
    return AK_OK;
}

static ak_status read_asset(gr *r)
{
    const json_t *asset = json_object_get(r->root, "asset");
    const json_t *version = json_object_get(asset, "version");
    if (!json_is_string(version))
        return ak_fail(r->job, AK_E_DATA, -1, "asset.version: missing");
    if (strncmp(json_string_value(version), "2.", 2) != 0)
        return ak_fail(r->job, AK_E_UNSUPPORTED, -1, "asset.version: glTF %s (only 2.x is read)",
                       json_string_value(version));
    const json_t *ak = json_object_get(json_object_get(asset, "extras"), "animkit");
    if (!json_is_object(ak))
        return AK_OK;
    r->animkit = ak;
    const json_t *format = json_object_get(ak, "format"), *variant = json_object_get(ak, "variant");
    char *f = gltf_bytes_of_utf8(r->job, json_is_string(format) ? json_string_value(format) : "");
    char *v = gltf_bytes_of_utf8(r->job, json_is_string(variant) ? json_string_value(variant) : "");
    return f && v ? ak_doc_set_format(r->doc, f, v) : AK_E_NOMEM;
}

static ak_status read_doc(gr *r, const unsigned char *bytes, size_t size)
{
    const unsigned char *text = bytes;
    size_t text_size = size;
    int64_t text_at = 0;
    ak_status st;
    if (size >= 4 && memcmp(bytes, "glTF", 4) == 0) {
        if (size < 12 || ak_load_u32(bytes + 4) != 2)
            return ak_fail(r->job, AK_E_UNSUPPORTED, 4, "glb container version is not 2");
        if ((st = glb_chunks(r, bytes, size, &text, &text_size)) != AK_OK)
            return st;
        text_at = 20;
    }
    if (text_size > GLTF_MAX_JSON)
        return ak_fail(r->job, AK_E_LIMIT, text_at, "the glTF JSON is %zu bytes (at most %zu are read)",
                       text_size, GLTF_MAX_JSON);
    json_error_t err;
    r->root = json_loadb((const char *)text, text_size, JSON_REJECT_DUPLICATES, &err);
    if (!r->root)
        return ak_fail(r->job, AK_E_DATA, text_at + err.position, "malformed JSON: %s", err.text);
    if (!json_is_object(r->root))
        return ak_fail(r->job, AK_E_DATA, text_at, "the glTF JSON is not an object");
    r->g.root = r->root;
    if ((st = read_asset(r)) != AK_OK || (st = load_buffers(r)) != AK_OK ||
        (st = gltf_props_read(r->job, r->doc, &r->doc->props, json_object_get(r->animkit, "props"),
                              "asset.extras.animkit.props", &r->g)) != AK_OK ||
        (st = gr_nodes(r)) != AK_OK)
        return st;
    return gr_clips(r);
}

ak_status gltf_read(ak_job *job, const unsigned char *bytes, size_t size, ak_doc *doc)
{
    gr r;
    memset(&r, 0, sizeof r);
    r.job = job;
    r.doc = doc;
    ak_status st = read_doc(&r, bytes, size);
    json_decref(r.root);
    if (st != AK_OK && !ak_job_failed(job))
        st = ak_fail(job, st, -1, "cannot read glTF");
    return st;
}
