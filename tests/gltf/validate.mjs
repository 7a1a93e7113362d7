// validate.mjs FILE... - runs the Khronos glTF validator on each file and
// fails unless it reports 0 errors, 0 warnings and only the Info codes that
// /work/shared/formats/gltf.md section 2 expects of an animkit export.
import fs from 'fs';
import path from 'path';

const prefix = process.env.AK_NODE_PREFIX;
const validator = (await import(path.join(prefix, 'node_modules/gltf-validator/index.js'))).default;
const allowed = new Set(['UNUSED_OBJECT', 'NODE_EMPTY', 'UNSUPPORTED_EXTENSION',
    'INCOMPLETE_EXTENSION_SUPPORT']);
let bad = 0;
for (const file of process.argv.slice(2)) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), { maxIssues: 0 });
    const i = report.issues;
    const stray = i.messages.filter((m) => m.severity < 2 || !allowed.has(m.code));
    const ok = i.numErrors === 0 && i.numWarnings === 0 && stray.length === 0;
    console.log(`${ok ? 'ok' : 'FAIL'} ${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos`);
    for (const m of stray.slice(0, 10))
        console.log(`  ${m.code} (severity ${m.severity}) at ${m.pointer}: ${m.message}`);
    if (!ok)
        bad++;
}
process.exit(bad ? 1 : 0);
