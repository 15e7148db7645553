// Every command of the command line: one export each, read by cli.ts as the whole module, so a
// new command is its own file in this folder plus one line here (docs/cli.md, "Adding a command").

export { apply } from './apply.js';
export { artifactsDownload, runsArtifacts } from './artifacts.js';
export { auditList } from './audit.js';
export { automationCreate, automationDisable, automationEnable, automationList, automationShow } from './automation.js';
export {
  callbacksCreate,
  callbacksDelete,
  callbacksDeliveries,
  callbacksDisable,
  callbacksEnable,
  callbacksList,
  callbacksResend,
  callbacksRotate,
} from './callbacks.js';
export { deliveriesList, deliveriesResend, deliveriesShow } from './deliveries.js';
export { factoryCreate, factoryList } from './factory.js';
export { factoryApplies, factorySourceClear, factorySourceSet, factorySourceShow, factorySourceSync } from './factory-source.js';
export { filterTest } from './filter-test.js';
export { harnessesList } from './harnesses.js';
export { keysCreate, keysList, keysRevoke } from './keys.js';
export { repoAdd, repoList, repoRemove, skillsList } from './repo.js';
export { run } from './run.js';
export { runsCancel, runsFollow, runsFollowup, runsGet, runsList, runsWait } from './runs.js';
export {
  scheduleCreate,
  scheduleDelete,
  scheduleList,
  schedulePause,
  scheduleResume,
  scheduleShow,
  scheduleUpdate,
} from './schedule.js';
export { secretCreate, secretDelete, secretList, secretUpdate } from './secret.js';
export { webhookCreate, webhookDelete, webhookDisable, webhookEnable, webhookList, webhookRotate } from './webhook.js';
export { workersList } from './workers.js';
