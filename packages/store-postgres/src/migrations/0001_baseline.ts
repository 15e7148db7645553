import * as access from './baseline/access.js';
import * as artifacts from './baseline/artifacts.js';
import * as callbacks from './baseline/callbacks.js';
import * as controlPlane from './baseline/control-plane.js';
import * as ingress from './baseline/ingress.js';
import * as notifications from './baseline/notifications.js';
import * as runs from './baseline/runs.js';
import * as schedules from './baseline/schedules.js';

/**
 * agentrun's schema as a fresh install gets it, one part per module of baseline/, in an order
 * where every table exists before a key or trigger names it. Later changes are migrations of
 * their own after this one (index.ts).
 */
export const up = [runs, notifications, controlPlane, access, ingress, schedules, artifacts, callbacks].map((part) => part.up).join('');
