import { packageBuild } from '../../tsup.base.js';

// `#crypto` stays an import in the output, so the host's runtime picks a half by its conditions:
// dist/crypto/node.* on Node, dist/crypto/noble.* elsewhere (docs/signatures.md, "Hashing").
// One entry per subpath export (package.json `exports`; docs/architecture.md, "Packages").
export default packageBuild(
  [
    'src/index.ts',
    'src/api.ts',
    'src/store/index.ts',
    'src/filter/index.ts',
    'src/verify/index.ts',
    'src/internal.ts',
    'src/testing/index.ts',
  ],
  {
    internal: ['src/crypto/node.ts', 'src/crypto/noble.ts'],
    external: ['#crypto'],
  },
);
