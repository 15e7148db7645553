import { packageBuild } from '../../tsup.base.js';

// The server part (the Mountable). The app itself is bundled by scripts/build-app.ts into dist/app/.
export default packageBuild(['src/server/index.ts']);
