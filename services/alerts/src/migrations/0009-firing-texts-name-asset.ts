import { Migration } from '@invest/platform/db/database';

/**
 * A price-change firing's body names what it is about: an asset by its name and ticker (`{subject_name}`:
 * "Sberbank (SBER)"), a portfolio or watchlist by its kind and name ("Portfolio «Main»"). Its title keeps the
 * short `{subject}` (the ticker, or the portfolio/watchlist). Price-target texts already name the asset.
 */
export class FiringTextsNameAsset extends Migration {
  override up() {
    this.addSql(`
      update notification_types set body_template =
        '{"ru": "{subject_name}: изменение за 24 ч достигло порога {threshold}% ({assets}). Следующий порог {next_threshold}%.", "en": "{subject_name}: the 24h change reached the {threshold}% threshold ({assets}). Next threshold {next_threshold}%."}'
      where id = 8`);
  }

}
