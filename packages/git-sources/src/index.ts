/**
 * `@agentrun/git-sources`: core's `RepositoryReader` over the `git` program, with a local cache of
 * each repository (README.md; docs/repositories.md, "The git layer"). Node only.
 */
export { type GitSources, gitSources } from './git-sources.js';
export type { GitSourcesOptions } from './options.js';
export { checkRepositoryUrl, type UrlPolicy } from './repository-url.js';
