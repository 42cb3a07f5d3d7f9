// The workspace is managed by the pinned pnpm in .toolchain/; a plain `npm install` at the
// root would write an npm layout over pnpm's. Point people at the two commands instead.
const agent = process.env.npm_config_user_agent ?? '';
if (!agent.startsWith('pnpm/')) {
  console.error(
    'This workspace installs itself: run `npm test` or `npm start` (they set up Node 24 and pnpm from the npm registry).\n' +
      'For other pnpm commands use `npm run pnpm -- <args>`.',
  );
  process.exit(1);
}
