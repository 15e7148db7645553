import * as m0001 from './0001_runs.js';
import * as m0002 from './0002_control_plane.js';
import * as m0003 from './0003_ingress.js';
import * as m0004 from './0004_ingress_functions.js';
import * as m0005 from './0005_ordered_filters.js';

/** A schema change. Migrations are append-only: never edit one that has shipped; add the next. */
export interface Migration {
  /** Sorts in application order: a zero-padded number and a name. */
  id: string;
  up: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { id: '0001_runs', up: m0001.up },
  { id: '0002_control_plane', up: m0002.up },
  { id: '0003_ingress', up: m0003.up },
  { id: '0004_ingress_functions', up: m0004.up },
  { id: '0005_ordered_filters', up: m0005.up },
];
