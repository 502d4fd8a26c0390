import { z } from 'zod';
import { isProduction } from './production-rules';

/** The CHAT_MODEL value that runs the in-process offline model (libs/assistant's OFFLINE_CHAT_MODEL). */
export const OFFLINE_CHAT_MODEL_NAME = 'offline';

/**
 * In production a stand-in runs only when the operator names it: an unset PRODUCT_SERVICE
 * would serve the mock catalogue, and an unset OPENAI_API_KEY would answer chats with the offline
 * model, to real users and without a word. Outside production both stay the defaults.
 * Each runs even when another variable is already invalid, so one message names every problem.
 */
export const productionNamesTheCatalogue = z.superRefine(
  (env: { NODE_ENV?: unknown; PRODUCT_SERVICE?: unknown }, ctx) => {
    if (isProduction(env) && env.PRODUCT_SERVICE === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['PRODUCT_SERVICE'],
        message: 'required in production: scraping, or mock to run the mock catalogue by name',
      });
  },
  { when: () => true },
);

export const productionNamesTheModel = z.superRefine(
  (env: { NODE_ENV?: unknown; OPENAI_API_KEY?: unknown; CHAT_MODEL?: unknown }, ctx) => {
    if (isProduction(env) && !env.OPENAI_API_KEY && env.CHAT_MODEL !== OFFLINE_CHAT_MODEL_NAME)
      ctx.addIssue({
        code: 'custom',
        path: ['OPENAI_API_KEY'],
        message: `required in production, or CHAT_MODEL=${OFFLINE_CHAT_MODEL_NAME} to run the offline model by name`,
      });
  },
  { when: () => true },
);
