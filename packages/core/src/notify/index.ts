export { createNotificationHub, type NotificationHub } from './hub.js';
export type { Notification, NotificationListener, Notifications } from './notification.js';
