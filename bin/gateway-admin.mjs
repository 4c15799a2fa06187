#!/usr/bin/env node
// The CLI ships as TypeScript. Registering tsx's ESM loader lets the installed bin run it without a build step.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// Our own tsconfig, not whichever one the caller's working directory happens to hold.
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('../cli/gateway-admin.ts');
