#!/usr/bin/env node
// The `observation-simulator` command. It is committed, not built: pnpm links a workspace
// package's bins when it installs the workspace, before `dist/` exists, and warned once per
// dependent package on every fresh install while the bin pointed into `dist/`.
import '../dist/cli.js';
