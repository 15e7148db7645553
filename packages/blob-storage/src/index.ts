export { type FilesystemBlobStoreOptions, filesystemBlobStore } from './filesystem-blobs.js';
