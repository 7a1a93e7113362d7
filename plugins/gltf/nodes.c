/* nodes.c - the node tree into a skeleton.
 *
 * Bones are the skins' joints, else every animated node. With animkit's
 * extras only the nodes marked "skeleton" form doc->skeleton (the others
 * stood for bones that only tracks named). Root bones are given in the
 * game's space: game = axis^-1 * (non-joint ancestors) * node, which is the
 * identity for a file animkit wrote (node 0 is exactly the axis turn). */
#include "parse.h"

#include <math.h>
#include <string.h>

/* TRS of an affine matrix (a negative determinant goes into scale x). */
static void decompose(const double m[16], double t[3], double q[4], double s[3])
{
    for (int c = 0; c < 3; c++) {
        t[c] = m[12 + c];
        s[c] = sqrt(m[c * 4] * m[c * 4] + m[c * 4 + 1] * m[c * 4 + 1] + m[c * 4 + 2] * m[c * 4 + 2]);
        if (s[c] == 0)
            s[c] = 1e-300;
    }
    double det = m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
                 m[8] * (m[1] * m[6] - m[5] * m[2]);
    if (det < 0)
        s[0] = -s[0];
    double r[3][3];
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 3; col++)
            r[row][col] = m[col * 4 + row] / s[col];
    ak_quat_from_matrix(r, q);
}

static ak_status node_fields(gr *r, const json_t *node, size_t i, gr_node *n)
{
    char where[40];
    snprintf(where, sizeof where, "nodes[%zu]", i);
    if (!json_is_object(node))
        return ak_fail(r->job, AK_E_DATA, -1, "%s: not an object", where);
    if (json_object_get(node, "matrix")) {
        double m[16];
        if (!gr_numbers(r, node, "matrix", m, 16, where))
            return AK_E_DATA;
        decompose(m, n->t, n->r, n->s);
    }
    if (!gr_numbers(r, node, "translation", n->t, 3, where) || !gr_numbers(r, node, "rotation", n->r, 4, where) ||
        !gr_numbers(r, node, "scale", n->s, 3, where))
        return AK_E_DATA;
    const json_t *name = json_object_get(node, "name");
    const json_t *extras = json_object_get(node, "extras");
    const json_t *ak = json_object_get(extras, "animkit");
    const json_t *exact_name = json_object_get(ak, "name");
    if (json_is_string(exact_name))
        name = exact_name;
    n->name = gltf_bytes_of_utf8(r->job, json_is_string(name) ? json_string_value(name) : "");
    if (!n->name)
        return AK_E_NOMEM;
    const json_t *id = json_object_get(extras, "bone_id");
    if (json_is_integer(id) && json_integer_value(id) >= INT32_MIN && json_integer_value(id) <= INT32_MAX) {
        n->has_id = 1;
        n->id = (int32_t)json_integer_value(id);
    }
    const json_t *hash = json_object_get(ak, "hash");
    if (json_is_integer(hash) && json_integer_value(hash) >= 0 && json_integer_value(hash) <= UINT32_MAX) {
        n->has_hash = 1;
        n->hash = (uint32_t)json_integer_value(hash);
    }
    return AK_OK;
}

/* Parents from the children lists: each node at most one parent, no cycles. */
static ak_status link_children(gr *r, const json_t *nodes)
{
    for (size_t i = 0; i < r->node_count; i++) {
        const json_t *children = json_object_get(json_array_get(nodes, i), "children");
        if (children && !json_is_array(children))
            return ak_fail(r->job, AK_E_DATA, -1, "nodes[%zu].children: not an array", i);
        for (size_t k = 0; k < json_array_size(children); k++) {
            const json_t *c = json_array_get(children, k);
            json_int_t ci = json_is_integer(c) ? json_integer_value(c) : -1;
            if (ci < 0 || (size_t)ci >= r->node_count || (size_t)ci == i)
                return ak_fail(r->job, AK_E_DATA, -1, "nodes[%zu].children[%zu]: no such node", i, k);
            if (r->nodes[ci].parent >= 0)
                return ak_fail(r->job, AK_E_DATA, -1, "nodes[%zu].children[%zu]: node %lld already has parent %d",
                               i, k, (long long)ci, (int)r->nodes[ci].parent);
            r->nodes[ci].parent = (int32_t)i;
        }
    }
    for (size_t i = 0; i < r->node_count; i++) {
        size_t steps = 0;
        for (int32_t p = r->nodes[i].parent; p >= 0; p = r->nodes[p].parent)
            if (++steps > r->node_count)
                return ak_fail(r->job, AK_E_DATA, -1, "nodes[%zu]: its parents form a cycle", i);
    }
    return AK_OK;
}

static ak_status mark_joints(gr *r)
{
    const json_t *skins = json_object_get(r->root, "skins");
    int any = 0;
    for (size_t s = 0; s < json_array_size(skins); s++) {
        const json_t *joints = json_object_get(json_array_get(skins, s), "joints");
        for (size_t k = 0; k < json_array_size(joints); k++) {
            const json_t *j = json_array_get(joints, k);
            json_int_t ji = json_is_integer(j) ? json_integer_value(j) : -1;
            if (ji < 0 || (size_t)ji >= r->node_count)
                return ak_fail(r->job, AK_E_DATA, -1, "skins[%zu].joints[%zu]: no such node", s, k);
            r->nodes[ji].joint = 1;
            any = 1;
        }
    }
    if (any)
        return AK_OK;
    const json_t *anims = json_object_get(r->root, "animations");
    for (size_t a = 0; a < json_array_size(anims); a++) {
        const json_t *channels = json_object_get(json_array_get(anims, a), "channels");
        for (size_t c = 0; c < json_array_size(channels); c++) {
            const json_t *node = json_object_get(json_object_get(json_array_get(channels, c), "target"), "node");
            json_int_t ni = json_is_integer(node) ? json_integer_value(node) : -1;
            if (ni >= 0 && (size_t)ni < r->node_count)
                r->nodes[ni].joint = 1;
        }
    }
    return AK_OK;
}

static int32_t joint_ancestor(const gr *r, size_t i)
{
    int32_t p = r->nodes[i].parent;
    while (p >= 0 && !r->nodes[p].joint)
        p = r->nodes[p].parent;
    return p;
}

static int in_skeleton(const gr *r, const json_t *node)
{
    if (!r->animkit)
        return 1;
    return json_is_true(json_object_get(json_object_get(json_object_get(node, "extras"), "animkit"), "skeleton"));
}

static ak_status add_bone(gr *r, const json_t *jnode, size_t i)
{
    gr_node *n = &r->nodes[i];
    ak_bone *b = ak_bone_add(r->doc, n->name);
    if (!b)
        return AK_E_NOMEM;
    n->bone = (int32_t)(r->doc->skeleton.bone_count - 1);
    b->has_id = n->has_id;
    b->id = n->id;
    b->has_hash = n->has_hash;
    b->hash = n->hash;
    int32_t p = joint_ancestor(r, i);
    b->parent = p >= 0 ? r->nodes[p].bone : -1;
    memcpy(b->translation, n->t, sizeof n->t);
    memcpy(b->rotation, n->r, sizeof n->r);
    memcpy(b->scale, n->s, sizeof n->s);
    const json_t *ak = json_object_get(json_object_get(jnode, "extras"), "animkit");
    double rest[10];
    if (json_object_get(ak, "rest")) {
        char where[48];
        snprintf(where, sizeof where, "nodes[%zu].extras.animkit", i);
        if (!gr_numbers(r, ak, "rest", rest, 10, where))
            return AK_E_DATA;
        memcpy(b->translation, rest, 3 * sizeof *rest);
        memcpy(b->rotation, rest + 3, 4 * sizeof *rest);
        memcpy(b->scale, rest + 7, 3 * sizeof *rest);
    } else if (b->parent < 0 && r->fix_axis) {
        gr_fix_key(r, AK_TRANSLATION, b->translation);
        gr_fix_key(r, AK_ROTATION, b->rotation);
    }
    return gltf_props_read(r->job, r->doc, &b->props, json_object_get(ak, "props"), "node extras props", &r->g);
}

/* Depth of node i, using (and filling) the depths of its ancestors; 0 in
 * `depth` means not known yet, so depths are stored plus one. */
static size_t node_depth(const gr *r, size_t *depth, size_t i)
{
    size_t steps = 0;
    int32_t p = (int32_t)i;
    while (p >= 0 && !depth[p]) {
        steps++;
        p = r->nodes[p].parent;
    }
    size_t base = p >= 0 ? depth[p] : 0;
    p = (int32_t)i;
    for (size_t k = 0; k < steps; k++, p = r->nodes[p].parent)
        depth[p] = base + steps - k;
    return depth[i];
}

/* Bones in skin order when that is parent-first, else depth-first order. */
static ak_status build_skeleton(gr *r, const json_t *nodes)
{
    const json_t *joints = json_object_get(json_array_get(json_object_get(r->root, "skins"), 0), "joints");
    size_t nj = json_array_size(joints);
    int parent_first = nj > 0;
    unsigned char *seen = ak_job_alloc(r->job, r->node_count + 1, 1);
    if (!seen)
        return AK_E_NOMEM;
    for (size_t k = 0; k < nj && parent_first; k++) {
        size_t i = (size_t)json_integer_value(json_array_get(joints, k));
        int32_t p = joint_ancestor(r, i);
        parent_first = !seen[i] && (p < 0 || seen[p]);
        seen[i] = 1;
    }
    size_t count = 0;
    for (size_t i = 0; i < r->node_count; i++)
        count += r->nodes[i].joint;
    if (!parent_first || nj != count) {
        /* by depth, stable by index within a depth: parents come first */
        size_t *depth = ak_job_alloc(r->job, r->node_count + 1, sizeof *depth), depth_max = 0;
        if (!depth)
            return AK_E_NOMEM;
        for (size_t i = 0; i < r->node_count; i++) {
            depth[i] = node_depth(r, depth, i);
            depth_max = depth[i] > depth_max ? depth[i] : depth_max;
        }
        for (size_t d = 0; d <= depth_max; d++)
            for (size_t i = 0; i < r->node_count; i++)
                if (depth[i] == d && r->nodes[i].joint && in_skeleton(r, json_array_get(nodes, i))) {
                    ak_status st = add_bone(r, json_array_get(nodes, i), i);
                    if (st != AK_OK)
                        return st;
                }
        return AK_OK;
    }
    for (size_t k = 0; k < nj; k++) {
        size_t i = (size_t)json_integer_value(json_array_get(joints, k));
        if (in_skeleton(r, json_array_get(nodes, i))) {
            ak_status st = add_bone(r, json_array_get(nodes, i), i);
            if (st != AK_OK)
                return st;
        }
    }
    return AK_OK;
}

static void node_matrix(const gr_node *n, double m[16]) { gltf_trs_matrix(n->t, n->r, n->s, m); }

/* axis^-1 * (non-joint ancestors of the first root joint). */
static void find_axis(gr *r)
{
    size_t first = r->node_count;
    for (size_t i = 0; i < r->node_count && first == r->node_count; i++)
        if (r->nodes[i].joint && joint_ancestor(r, i) < 0)
            first = i;
    for (size_t i = 0; i < r->node_count; i++)
        r->nodes[i].root_bone = r->nodes[i].joint && joint_ancestor(r, i) < 0;
    if (first == r->node_count)
        return;
    const json_t *upj = json_object_get(r->animkit, "up");
    const char *param = ak_job_param(r->job, "up");
    int up = param ? gltf_up_of_name(param) : json_is_string(upj) ? gltf_up_of_name(json_string_value(upj))
                                                                  : GLTF_UP_Z;
    if (up < 0) {
        ak_warn(r->job, -1, "up=%s: expected z, y or y-left; using z", param ? param : json_string_value(upj));
        up = GLTF_UP_Z;
    }
    r->up = (gltf_up)up;
    double m[16], local[16];
    gltf_trs_matrix((const double[3]){ 0, 0, 0 }, (const double[4]){ 0, 0, 0, 1 }, (const double[3]){ 1, 1, 1 }, m);
    for (int32_t p = r->nodes[first].parent; p >= 0; p = r->nodes[p].parent) {
        node_matrix(&r->nodes[p], local);
        gltf_mat_mul(local, m, m);
    }
    float fr[4], fs[3];
    gltf_up_transform((gltf_up)up, fr, fs);
    double axis[16], inv[16];
    gltf_trs_matrix((const double[3]){ 0, 0, 0 }, (const double[4]){ fr[0], fr[1], fr[2], fr[3] },
                    (const double[3]){ fs[0], fs[1], fs[2] }, axis);
    gltf_mat_inverse(axis, inv);
    gltf_mat_mul(inv, m, m);
    double err = 0;
    for (int c = 0; c < 16; c++)
        err = fmax(err, fabs(m[c] - (c % 5 == 0 ? 1.0 : 0.0)));
    if (err < 1e-6)
        return;
    double s[3];
    decompose(m, r->axis_t, r->axis_r, s);
    if (s[0] <= 0 || fabs(s[0] - s[1]) > 1e-6 * s[0] || fabs(s[0] - s[2]) > 1e-6 * s[0]) {
        ak_warn(r->job, -1, "the nodes above the root bones mirror or scale unevenly; root bones are read "
                "unchanged");
        return;
    }
    r->axis_s = s[0];
    r->fix_axis = 1;
    ak_warn(r->job, -1, "root bones turned from the file's space into the game's (%s up)", gltf_up_name((gltf_up)up));
}

void gr_fix_key(const gr *r, ak_channel_kind kind, double *v)
{
    if (kind == AK_ROTATION) {
        ak_quat_mul(r->axis_r, v, v);
    } else if (kind == AK_TRANSLATION) {
        double p[4] = { v[0], v[1], v[2], 0 }, conj[4] = { -r->axis_r[0], -r->axis_r[1], -r->axis_r[2], r->axis_r[3] };
        ak_quat_mul(r->axis_r, p, p);
        ak_quat_mul(p, conj, p);
        for (int c = 0; c < 3; c++)
            v[c] = r->axis_t[c] + r->axis_s * p[c];
    } else if (kind == AK_SCALE) {
        for (int c = 0; c < 3; c++)
            v[c] *= r->axis_s;
    }
}

ak_status gr_nodes(gr *r)
{
    const json_t *nodes = json_object_get(r->root, "nodes");
    if (nodes && !json_is_array(nodes))
        return ak_fail(r->job, AK_E_DATA, -1, "nodes: not an array");
    r->node_count = json_array_size(nodes);
    r->nodes = ak_job_alloc(r->job, r->node_count ? r->node_count : 1, sizeof *r->nodes);
    if (!r->nodes)
        return AK_E_NOMEM;
    for (size_t i = 0; i < r->node_count; i++) {
        gr_node *n = &r->nodes[i];
        n->parent = n->bone = -1;
        n->r[3] = n->s[0] = n->s[1] = n->s[2] = 1;
        ak_status st = node_fields(r, json_array_get(nodes, i), i, n);
        if (st != AK_OK)
            return st;
    }
    ak_status st = link_children(r, nodes);
    if (st == AK_OK)
        st = mark_joints(r);
    if (st != AK_OK)
        return st;
    find_axis(r);
    return build_skeleton(r, nodes);
}
