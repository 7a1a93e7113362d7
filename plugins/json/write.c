/* write.c - the core's JSON dump with stored key bytes and ticks, so that
 * reading it back rebuilds the document exactly. */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>

ak_status json_write(ak_job *job, const ak_doc *doc, ak_sink *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return ak_fail(job, AK_E_NOMEM, -1, "out of memory (cannot open a memory stream)");
    ak_status st = ak_doc_write_json(doc, NULL, AK_JSON_RAW | AK_JSON_TICKS, f);
    if (fclose(f) != 0 && st == AK_OK)
        st = AK_E_IO;
    if (st != AK_OK || !text) {
        free(text);
        return ak_fail(job, st == AK_E_IO || st == AK_OK ? AK_E_NOMEM : st, -1,
                       "out of memory while formatting the JSON text");
    }
    int ok = ak_put(out, text, len);
    free(text);
    if (!ok || ak_sink_failed(out))
        return ak_fail(job, AK_E_NOMEM, (int64_t)ak_sink_size(out), "out of memory while encoding");
    return AK_OK;
}
