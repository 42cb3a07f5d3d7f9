// The community-nodes lint of @n8n/node-cli in its strict (n8n Cloud) form, on the package's own
// sources only: tests, build scripts and the bundled core are not shipped as node source.
import { config } from '@n8n/node-cli/eslint';

export default [{ ignores: ['dist/**', 'test/**', 'scripts/**', '*.config.ts', 'examples/**'] }, ...config];
