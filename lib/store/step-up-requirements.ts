/**
 * Step-up a rule can ask for: `code` an authenticator-app code, `passkey` a passkey, `any`
 * either; `none` the click alone. Apart from the approval policy's schemas, so a channel policy
 * (read before every operation) does not build them.
 */
export const STEP_UP_REQUIREMENTS = ['none', 'passkey', 'code', 'any'] as const;
export type StepUpRequirement = (typeof STEP_UP_REQUIREMENTS)[number];
