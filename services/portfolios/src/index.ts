export { createPortfoliosApp, type PortfoliosApp, type PortfoliosAppOptions } from './portfolios.app.js';
