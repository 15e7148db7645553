/** Times and sizes as people read them. */
export const formatTime = (iso: string | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');

export const formatBytes = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
