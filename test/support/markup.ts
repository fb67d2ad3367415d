/**
 * `<…>` markup Slack would act on (mentions, broadcasts, links) in a message's `text` and its
 * mrkdwn blocks, leaving out what `allowed` matches (the bot's own dates and mentions).
 */
export function liveMarkup(
  message: { readonly text?: string | undefined; readonly blocks?: unknown } | undefined,
  allowed: RegExp,
): string[] {
  if (!message) return ['(no message)'];
  const texts = [message.text ?? ''];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (record.type === 'mrkdwn' && typeof record.text === 'string') texts.push(record.text);
      for (const nested of Object.values(record)) walk(nested);
    }
  };
  walk(message.blocks);
  return texts.flatMap((text) => (text.match(/<[^<>]*>/g) ?? []).filter((m) => !allowed.test(m)));
}
