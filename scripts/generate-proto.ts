import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { eventCatalogue, generateProto } from '@shop/contracts';

const protoDir = resolve(__dirname, '..', 'proto');
const files = generateProto(eventCatalogue);
// Event schemas of types that no longer exist must not linger.
rmSync(join(protoDir, 'events'), { recursive: true, force: true });
for (const [path, content] of files) {
  mkdirSync(dirname(join(protoDir, path)), { recursive: true });
  writeFileSync(join(protoDir, path), content);
}
process.stdout.write(
  `proto/: ${files.size} files written (${readdirSync(join(protoDir, 'events')).length} event schemas)\n`,
);
