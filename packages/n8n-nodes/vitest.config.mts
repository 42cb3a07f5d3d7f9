import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// Tests are .mts: @n8n/node-cli's strict lint (`n8n-node lint`, default eslint.config.mjs)
// applies n8n Cloud's rules to every *.ts file, which are the shipped node sources only.
export default mergeConfig(sharedTestConfig, defineConfig({ test: { include: ['test/**/*.test.mts'] } }));
