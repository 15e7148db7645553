export { createDashboard } from './dashboard.js';
export type { AuthHook, DashboardOptions } from './options.js';
