import type { DeliveryLanguage } from '@invest/contracts';
import type { UserProfile } from './telegram.repository.js';

/** The bot's replies to commands, in the user's language. Plain text: nothing in them is markup. */
export interface BotTexts {
  linked: string;
  linkUsed: string;
  linkExpired: string;
  linkUnknown: string;
  privateOnly: string;
  startWithoutLink: string;
  stopped: string;
  notLinked: string;
  mutedUntil(until: string): string;
  unmuted: string;
  muteUsage: string;
  status(p: UserProfile, mutedUntil: string | null): string;
  help: string;
}

const COMMANDS_RU = '/status — что подключено\n/mute 1h или /mute today — тишина на час или до конца дня\n/unmute — снова присылать\n/stop — отключить этот чат';
const COMMANDS_EN = '/status — what is linked and on\n/mute 1h or /mute today — silence for an hour or until the end of the day\n/unmute — send again\n/stop — unlink this chat';

const onOff = (on: boolean, lang: DeliveryLanguage) => (lang === 'ru' ? (on ? 'вкл.' : 'выкл.') : on ? 'on' : 'off');

export const BOT_TEXTS: Record<DeliveryLanguage, BotTexts> = {
  ru: {
    linked: `Готово: уведомления будут приходить в этот чат.\n\n${COMMANDS_RU}`,
    linkUsed: 'Эта ссылка уже использована. Получите новую в настройках уведомлений.',
    linkExpired: 'Срок действия ссылки истёк (она действует 15 минут). Получите новую в настройках уведомлений.',
    linkUnknown: 'Ссылка не подходит. Получите новую в настройках уведомлений.',
    privateOnly: 'Подключить можно только личный чат с ботом.',
    startWithoutLink: 'Чтобы получать уведомления здесь, откройте ссылку «Подключить Telegram» в настройках уведомлений.',
    stopped: 'Чат отключён: уведомления сюда больше не придут. Подключить снова можно в настройках уведомлений.',
    notLinked: 'Этот чат не подключён. Откройте ссылку «Подключить Telegram» в настройках уведомлений.',
    mutedUntil: (until) => `Тишина до ${until}. /unmute — присылать снова.`,
    unmuted: 'Уведомления снова приходят в этот чат.',
    muteUsage: 'Напишите /mute 1h (на час) или /mute today (до конца дня).',
    status: (p, muted) =>
      [
        'Чат подключён.',
        `Telegram: ${onOff(p.channels.telegram, 'ru')}${muted ? `, тишина до ${muted}` : ''}`,
        `В приложении: ${onOff(p.channels.in_app, 'ru')}`,
        `Web Push: ${onOff(p.channels.push, 'ru')}, устройств: ${p.pushDevices}`,
        `E-mail: ${onOff(p.channels.email, 'ru')}${p.email ? `, ${p.email.address}${p.email.confirmed ? '' : ' (не подтверждён)'}` : ', адрес не указан'}`,
        `Тихие часы: ${p.quietHours ? `${p.quietHours.start}–${p.quietHours.end} (${p.timeZone})` : 'нет'}`,
      ].join('\n'),
    help: `Команды:\n${COMMANDS_RU}`,
  },
  en: {
    linked: `Done: notifications will come to this chat.\n\n${COMMANDS_EN}`,
    linkUsed: 'This link has been used already. Get a new one in the notification settings.',
    linkExpired: 'This link has expired (it is valid for 15 minutes). Get a new one in the notification settings.',
    linkUnknown: 'This link is not valid. Get a new one in the notification settings.',
    privateOnly: 'Only a private chat with the bot can be linked.',
    startWithoutLink: 'To get notifications here, open the “Link Telegram” link in the notification settings.',
    stopped: 'This chat is unlinked: no more notifications here. You can link it again in the notification settings.',
    notLinked: 'This chat is not linked. Open the “Link Telegram” link in the notification settings.',
    mutedUntil: (until) => `Muted until ${until}. /unmute to get notifications again.`,
    unmuted: 'Notifications come to this chat again.',
    muteUsage: 'Send /mute 1h (for an hour) or /mute today (until the end of the day).',
    status: (p, muted) =>
      [
        'This chat is linked.',
        `Telegram: ${onOff(p.channels.telegram, 'en')}${muted ? `, muted until ${muted}` : ''}`,
        `In-app: ${onOff(p.channels.in_app, 'en')}`,
        `Web Push: ${onOff(p.channels.push, 'en')}, devices: ${p.pushDevices}`,
        `E-mail: ${onOff(p.channels.email, 'en')}${p.email ? `, ${p.email.address}${p.email.confirmed ? '' : ' (not confirmed)'}` : ', no address'}`,
        `Quiet hours: ${p.quietHours ? `${p.quietHours.start}–${p.quietHours.end} (${p.timeZone})` : 'none'}`,
      ].join('\n'),
    help: `Commands:\n${COMMANDS_EN}`,
  },
};

/** A time for a reply, in the user's zone and language: "12 мая в 15:30" / "12 May at 15:30". */
export function replyTime(at: Date, lang: DeliveryLanguage, timeZone: string): string {
  return new Intl.DateTimeFormat(lang === 'ru' ? 'ru-RU' : 'en-GB', { timeZone, day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
}
