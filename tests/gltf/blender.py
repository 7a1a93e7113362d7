# blender.py - run by blender.sh inside Blender 3.4 (headless):
#   blender -b --factory-startup --python-exit-code 1 --python blender.py -- \
#       IN.glb EXPECTED.json OUT.glb EDIT.json CLIP BONE FRAME
# 1. imports IN.glb as /work/shared/formats/gltf.md section 3 says and
#    compares every bone's local transform at every frame of every clip in
#    EXPECTED.json ({clip: {bone: [[frame, q..., t..., on_key]]}}, animkit's
#    values) with Blender's, rotations up to sign: tightly on rotation keys,
#    loosely between them (Blender interpolates quaternion components
#    linearly, glTF and animkit along the arc);
# 2. turns BONE of CLIP at FRAME by 40 degrees, keys it, exports the action
#    with Blender's own exporter to OUT.glb and writes the bone's new local
#    rotation (glTF node space) to EDIT.json.
import bpy, json, math, sys
from mathutils import Matrix, Quaternion

args = sys.argv[sys.argv.index('--') + 1:]
src, expected_path, out, edit_path, clip, bone, frame = args[0], args[1], args[2], args[3], args[4], args[5], int(args[6])
scene = bpy.context.scene
scene.render.fps = 30
bpy.ops.import_scene.gltf(filepath=src, bone_heuristic='BLENDER', guess_original_bind_pose=False)
arm = next(o for o in scene.objects if o.type == 'ARMATURE')
ad = arm.animation_data


def local(pb):
    parent = pb.parent.matrix.inverted() if pb.parent else Matrix.Rotation(math.radians(-90), 4, 'X')
    return parent @ pb.matrix


expected = json.load(open(expected_path))
worst_q = worst_between = worst_t = 0.0
checked = 0
def rest_pose():  # channels an action lacks keep the last action's values: back to rest
    for pb in arm.pose.bones:
        pb.location, pb.rotation_quaternion, pb.scale = (0, 0, 0), (1, 0, 0, 0), (1, 1, 1)


for name, bones in expected.items():
    rest_pose()
    ad.action = ad.nla_tracks[name].strips[0].action
    for bname, rows in bones.items():
        if bname not in arm.pose.bones:
            raise SystemExit(f'FAIL: bone {bname!r} not in the armature')
        for row in rows:
            scene.frame_set(row[0])
            L = local(arm.pose.bones[bname])
            q = L.to_quaternion()
            want = Quaternion((row[4], row[1], row[2], row[3]))
            err = 1 - abs(q.dot(want) / want.magnitude)
            if row[8]:  # on a key: Blender must show the key itself
                worst_q = max(worst_q, err)
            else:  # between keys Blender lerps quaternion components, animkit (and glTF) slerps
                worst_between = max(worst_between, err)
            worst_t = max(worst_t, max(abs(a - b) for a, b in zip(L.to_translation(), row[5:8])))
            checked += 1
print(f'blender import: {checked} bone poses compared, worst 1-|dot| {worst_q:.2e} on keys, {worst_between:.2e} '
      f'between keys, worst translation {worst_t:.2e}')
if not (checked > 0 and worst_q < 1e-5 and worst_between < 1e-3 and worst_t < 1e-4):
    raise SystemExit('FAIL: Blender shows other bone transforms than animkit')

# The edit: BONE of CLIP turned 40 degrees about its own X at FRAME.
action = ad.nla_tracks[clip].strips[0].action
for track in list(ad.nla_tracks):
    ad.nla_tracks.remove(track)
for other in list(bpy.data.actions):  # the exporter would merge every action it finds
    if other != action:
        bpy.data.actions.remove(other)
for obj in list(scene.objects):  # the factory scene's cube, light and camera
    if obj.type in ('MESH', 'LIGHT', 'CAMERA'):
        bpy.data.objects.remove(obj)
rest_pose()
ad.action = action
scene.frame_start, scene.frame_end = int(action.frame_range[0]), int(action.frame_range[1])
scene.frame_set(frame)
pb = arm.pose.bones[bone]
pb.rotation_mode = 'QUATERNION'
pb.rotation_quaternion = pb.rotation_quaternion @ Quaternion((1, 0, 0), math.radians(40))
pb.keyframe_insert('rotation_quaternion', frame=frame)
scene.frame_set(frame)
q = local(pb).to_quaternion()
json.dump({'frame': frame, 'bone': bone, 'rotation': [q.x, q.y, q.z, q.w], 'action': action.name},
          open(edit_path, 'w'))
bpy.ops.export_scene.gltf(filepath=out, export_format='GLB', export_extras=True, export_animations=True,
                          export_nla_strips=False, export_apply=False)
print('blender export:', out)
