import type { RunEventView } from '../models/run-events.js';
import type { RunEventRecord } from '../store/run-events.js';

/** An event as the API shows it, in a page and in the live stream (the run's id is the URL's). */
export const toRunEventView = (e: RunEventRecord): RunEventView => ({ id: e.id, at: e.at, type: e.type, data: e.data });
