export { createDeliveryApp, type DeliveryApp, type DeliveryAppOptions } from './delivery.app.js';
