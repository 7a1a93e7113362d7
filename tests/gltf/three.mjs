// three.mjs - loads a .glb with three.js's GLTFLoader (as a web page would)
// and checks it against animkit.
//   node three.mjs compare FILE.glb EXPECTED.json
//     EXPECTED is what `gltf-fixture sample` printed: per clip and channel,
//     ak_channel_sample values at several times. Each must match three.js's
//     interpolant within float32 tolerance (rotations up to sign).
//   node three.mjs upright FILE.glb HEAD FOOT...
//     at 9 times of every clip, the HEAD bone stands above every FOOT in
//     three.js world space (+Y up).
import fs from 'fs';
import path from 'path';

const prefix = process.env.AK_NODE_PREFIX;
const THREE = await import(path.join(prefix, 'node_modules/three/build/three.module.js'));
const { GLTFLoader } = await import(path.join(prefix, 'node_modules/three/examples/jsm/loaders/GLTFLoader.js'));

async function load(file) {
    const b = fs.readFileSync(file);
    const gltf = await new GLTFLoader().parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.length), '');
    return gltf;
}

const suffix = { rotation: 'quaternion', translation: 'position', scale: 'scale' };
const [mode, file, ...rest] = process.argv.slice(2);
const gltf = await load(file);
const json = gltf.parser.json;

async function compare(expected) {
    let checked = 0, worst = 0, bad = 0;
    for (const clip of expected.clips) {
        const ai = json.animations ? json.animations.findIndex((a) => a.extras.animkit.index === clip.clip) : -1;
        if (!clip.channels.length)
            continue;
        if (ai < 0) { console.log(`FAIL clip ${clip.clip}: no animation`); bad++; continue; }
        const anim = gltf.animations[ai];
        const tracks = json.animations[ai].extras.animkit.tracks;
        for (const ch of clip.channels) {
            const x = tracks[ch.track];
            if (x.channels[ch.kind].sampler < 0)
                continue; // a second track of the same bone: kept in extras only
            const node = await gltf.parser.getDependency('node', x.node);
            const name = `${node.name}.${suffix[ch.kind]}`;
            const track = anim.tracks.find((t) => t.name === name);
            if (!track) { console.log(`FAIL ${anim.name}: no track ${name}`); bad++; continue; }
            const interp = track.createInterpolant();
            for (const [t, ...want] of ch.samples) {
                const got = Array.from(interp.evaluate(t));
                let err = 0;
                if (ch.kind === 'rotation') {
                    const n = Math.hypot(...got), m = Math.hypot(...want);
                    const dot = got.reduce((s, g, i) => s + g * want[i], 0) / (n * m);
                    err = 1 - Math.abs(dot); // 0 when equal up to sign
                    err = Math.sqrt(Math.max(err, 0) * 2); // ~ half the angle between them
                } else {
                    err = Math.max(...got.map((g, i) => Math.abs(g - want[i]) / Math.max(1, Math.abs(want[i]))));
                }
                worst = Math.max(worst, err);
                checked++;
                if (!(err <= 1e-4)) {
                    if (bad < 10)
                        console.log(`FAIL ${anim.name} ${name} t=${t}: three ${got} animkit ${want} (err ${err})`);
                    bad++;
                }
            }
        }
    }
    console.log(`${file}: ${checked} samples compared, ${bad} off, worst error ${worst.toExponential(2)} ` +
        `(${expected.skipped} channels with invalid times left out)`);
    return bad === 0 && checked > 0;
}

async function upright(headName, feet) {
    const scene = gltf.scene;
    const mixer = new THREE.AnimationMixer(scene);
    const find = (n) => { let o = null; scene.traverse((x) => { if (x.userData.name === n || x.name === n) o = o || x; }); return o; };
    const head = find(headName), footObjs = feet.map(find);
    if (!head || footObjs.some((f) => !f)) { console.log('FAIL: bones not found'); return false; }
    let ok = true, checked = 0;
    for (const clip of gltf.animations) {
        mixer.stopAllAction();
        const action = mixer.clipAction(clip);
        action.play();
        for (let i = 0; i <= 8; i++) {
            const t = clip.duration * i / 8;
            mixer.setTime(t);
            scene.updateMatrixWorld(true);
            const hy = new THREE.Vector3().setFromMatrixPosition(head.matrixWorld).y;
            for (const f of footObjs) {
                const fy = new THREE.Vector3().setFromMatrixPosition(f.matrixWorld).y;
                checked++;
                if (!(hy > fy + 0.2)) { // a sprinting foot kicks up to ~0.5 m below the head
                    console.log(`FAIL ${clip.name} t=${t}: head y ${hy} not above ${f.name} y ${fy}`);
                    ok = false;
                }
            }
        }
        action.stop();
    }
    console.log(`${file}: head above feet at ${checked} (clip, time, foot) samples: ${ok ? 'ok' : 'FAIL'}`);
    return ok && checked > 0;
}

const ok = mode === 'compare' ? await compare(JSON.parse(fs.readFileSync(rest[0], 'utf8')))
    : await upright(rest[0], rest.slice(1));
process.exit(ok ? 0 : 1);
