/** Request/reply subjects: `<service>.<resource>.<verb>`. */
export const Subjects = {
  screener: {
    sharesList: 'screener.shares.list',
    categoriesList: 'screener.categories.list',
    countriesList: 'screener.countries.list',
    assetsGet: 'screener.assets.get',
  },
  /** Every service answers `<service>.health.ping` so the gateway can tell it is up. */
  healthPing: (service: string) => `${service}.health.ping`,
} as const;
