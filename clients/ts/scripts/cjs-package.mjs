// dist/cjs is CommonJS inside a `"type": "module"` package: its own package.json says so to Node and to
// TypeScript (its .d.ts then describe CommonJS modules, for `require` users).
import { writeFileSync } from 'node:fs';
writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), '{ "type": "commonjs" }\n');
