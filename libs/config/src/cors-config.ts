import { z } from 'zod';
import { isProduction } from './production-rules';

/** The spec's credentialed origins; `null` is the literal origin of pages opened from local files. */
export const SPEC_CORS_ORIGINS: readonly string[] = [
  'http://localhost:8080',
  'http://localhost:3000',
  'http://localhost:3001',
  'http://localhost:5173',
  'null',
];

/** `null`, or an origin exactly as a browser sends it: scheme, host and port, nothing after. */
const isOrigin = (value: string) => {
  if (value === 'null') return true;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
};

/**
 * CORS_ORIGINS: the origins allowed credentialed cross-origin requests, comma-separated, each
 * exactly as browsers send it (`https://shop.example.com`, no path or trailing slash; `null`
 * for pages opened from local files).
 */
export const corsOriginList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
  )
  .pipe(
    z.array(
      z
        .string()
        .refine(isOrigin, 'each must be an origin such as https://shop.example.com (no path), or null'),
    ),
  );

/**
 * The origins the gateway echoes: exactly CORS_ORIGINS when set; otherwise the spec's list
 * outside production, and none in production, where `null` (any local file or sandboxed frame)
 * and localhost (anything running on a user's machine) would be handed the user's cookies.
 */
export function corsOrigins(config: {
  NODE_ENV?: unknown;
  CORS_ORIGINS?: readonly string[] | undefined;
}): ReadonlySet<string> {
  return new Set(config.CORS_ORIGINS ?? (isProduction(config) ? [] : SPEC_CORS_ORIGINS));
}
