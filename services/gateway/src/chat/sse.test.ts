import { describe, expect, it } from 'vitest';
import { localizedEventData } from './sse.js';

describe('localizedEventData', () => {
  const failed = { message_id: 'm1', message: 'The assistant could not answer. Please try again.' };

  it("writes an error event's message in the stream's language and keeps its other fields", () => {
    expect(localizedEventData('error', failed, 'ru')).toEqual({ message_id: 'm1', message: 'Ассистент не смог ответить. Попробуйте ещё раз.' });
    expect(localizedEventData('error', { message_id: 'm1', message: 'The answer stream was interrupted; resume it with Last-Event-ID.' }, 'ru')).toEqual({
      message_id: 'm1',
      message: 'Ответ прервался; продолжите его получение с Last-Event-ID.',
    });
  });

  it('keeps English as it is, and every other event untouched', () => {
    expect(localizedEventData('error', failed, 'en')).toBe(failed);
    const chunk = { content: 'The assistant could not answer. Please try again.' };
    expect(localizedEventData('chunk', chunk, 'ru')).toBe(chunk);
  });
});
