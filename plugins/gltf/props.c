/* props.c - document, clip, track, event and bone props as JSON objects
 * inside extras.animkit, in their order, with their types kept:
 * int -> integer, float -> real (or {"float": "nan"|"inf"|"-inf"}),
 * string -> string (bytes as Latin-1), bytes -> {"hex": "..."}. */
#include "gltf.h"

#include <math.h>
#include <string.h>

static json_t *prop_value(ak_job *job, const ak_prop *p, const gltf_blobs *blobs)
{
    if (p->type == AK_PROP_BYTES && blobs && p->size >= GLTF_BLOB_MIN) {
        json_int_t view = blobs->put(blobs->user, p->data, p->size);
        return view < 0 ? NULL : json_pack("{s:I}", "bufferView", view);
    }
    switch (p->type) {
    case AK_PROP_INT: return json_integer((json_int_t)p->i);
    case AK_PROP_FLOAT:
        if (!isfinite(p->f))
            return json_pack("{s:o}", "float", gltf_number(p->f));
        return json_real(p->f);
    case AK_PROP_STRING: {
        char *s = gltf_utf8_of_bytes(job, (const char *)p->data);
        json_t *j = s ? json_string(s) : NULL;
        ak_job_free(job, s);
        return j;
    }
    default: {
        json_t *hex = gltf_hex(job, p->data, p->size);
        return hex ? json_pack("{s:o}", "hex", hex) : NULL;
    }
    }
}

json_t *gltf_props_json(ak_job *job, const ak_props *props, const gltf_blobs *blobs)
{
    json_t *obj = json_object();
    for (size_t i = 0; obj && i < props->count; i++) {
        char *key = gltf_utf8_of_bytes(job, props->items[i].key);
        json_t *v = key ? prop_value(job, &props->items[i], blobs) : NULL;
        if (!v || json_object_set_new(obj, key, v) != 0) {
            json_decref(obj);
            obj = NULL;
        }
        ak_job_free(job, key);
    }
    if (!obj && !ak_job_failed(job))
        ak_fail(job, AK_E_NOMEM, -1, "out of memory building extras");
    return obj;
}

static ak_status bytes_prop(ak_job *job, ak_doc *doc, ak_props *props, const char *key,
                            const json_t *hex, const char *where)
{
    const char *s = json_string_value(hex);
    unsigned char *buf = ak_job_alloc(job, strlen(s) / 2 + 1, 1);
    if (!buf)
        return AK_E_NOMEM;
    long n = gltf_hex_decode(s, buf);
    ak_status st = n < 0 ? ak_fail(job, AK_E_DATA, -1, "%s.%s: malformed hex", where, key)
                         : ak_prop_set_bytes(doc, props, key, buf, (size_t)n);
    ak_job_free(job, buf);
    return st;
}

static ak_status one_prop(ak_job *job, ak_doc *doc, ak_props *props, const char *key, const json_t *v,
                          const char *where, const gltf_data *g)
{
    const json_t *view = json_object_get(v, "bufferView");
    if (json_is_object(v) && json_object_size(v) == 1 && json_is_integer(view) && g) {
        char w[160];
        snprintf(w, sizeof w, "%.100s.%.40s", where, key);
        size_t size;
        const unsigned char *data = gltf_view_bytes(job, g, json_integer_value(view), &size, w);
        return data ? ak_prop_set_bytes(doc, props, key, data, size) : AK_E_DATA;
    }
    double f;
    if (json_is_integer(v))
        return ak_prop_set_int(doc, props, key, (int64_t)json_integer_value(v));
    if (json_is_real(v))
        return ak_prop_set_float(doc, props, key, json_real_value(v));
    if (json_is_string(v)) {
        char *s = gltf_bytes_of_utf8(job, json_string_value(v));
        ak_status st = s ? ak_prop_set_string(doc, props, key, s) : AK_E_NOMEM;
        ak_job_free(job, s);
        return st;
    }
    const json_t *hex = json_object_get(v, "hex");
    if (json_is_object(v) && json_object_size(v) == 1 && json_is_string(hex))
        return bytes_prop(job, doc, props, key, hex, where);
    const json_t *fl = json_object_get(v, "float");
    if (json_is_object(v) && json_object_size(v) == 1 && gltf_number_value(fl, &f))
        return ak_prop_set_float(doc, props, key, f);
    return ak_fail(job, AK_E_DATA, -1, "%s.%s: a prop must be an integer, real, string or {\"hex\"}",
                   where, key);
}

ak_status gltf_props_read(ak_job *job, ak_doc *doc, ak_props *props, const json_t *obj,
                          const char *where, const gltf_data *g)
{
    if (!obj)
        return AK_OK;
    if (!json_is_object(obj))
        return ak_fail(job, AK_E_DATA, -1, "%s: props must be an object", where);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        char *key = gltf_bytes_of_utf8(job, k);
        ak_status st = key ? one_prop(job, doc, props, key, v, where, g) : AK_E_NOMEM;
        ak_job_free(job, key);
        if (st != AK_OK)
            return ak_job_failed(job) ? st : ak_fail(job, st, -1, "%s: cannot store prop", where);
    }
    return AK_OK;
}
