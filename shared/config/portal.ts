/**
 * How the portal looks and where it may be shown: its title, logo and accent colour (light
 * styling for a customer's own brand), and the origins that may frame it (CSP
 * `frame-ancestors`). Checked where they are set (the construct's props, the local stack's
 * options) and again where the functions read them, with the field and the limit named.
 */
import { z } from 'zod';
import { firstIssue } from '../platform/zod-issues';
import { ENV } from './resources';

export const PORTAL_TITLE_MAX = 80;

export const portalBrandingSchema = z
  .object({
    title: z.string().min(1).max(PORTAL_TITLE_MAX, `at most ${PORTAL_TITLE_MAX} characters`).optional(),
    logoUrl: z
      .url({ protocol: /^https$/, message: 'an https URL' })
      .max(2048, 'at most 2048 characters')
      .optional(),
    accentColor: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, 'a colour as #rrggbb')
      .optional(),
  })
  .strict();

export type PortalBranding = z.infer<typeof portalBrandingSchema>;

/** A frame ancestor: an https origin (`https://app.example.com`, `https://*.example.com`). */
const FRAME_ANCESTOR = /^https:\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i;

/** The portal branding in `value`, or an error naming the field and what it must be. */
export function parsePortalBranding(value: unknown, field = 'portalBranding'): PortalBranding {
  const parsed = portalBrandingSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = firstIssue(parsed.error);
  throw new Error(`${field}${issue?.path ? `.${issue.path}` : ''}: ${issue?.message ?? 'not valid'}`);
}

/** The origins in `list`, each checked; an error names the one that is not an https origin. */
export function parseFrameAncestors(list: readonly string[], field = 'portalFrameAncestors'): string[] {
  list.forEach((origin, index) => {
    if (!FRAME_ANCESTOR.test(origin)) {
      throw new Error(
        `${field}[${index}]: '${origin}' is not an https origin such as https://app.example.com (no path, no query)`,
      );
    }
  });
  return [...list];
}

/** The portal's settings as the construct's props and the local stack's options give them. */
export interface PortalSettings {
  readonly portalFrameAncestors?: readonly string[];
  readonly portalBranding?: Readonly<PortalBranding>;
}

/**
 * The management function's environment for the portal's settings (checked where they are
 * set), each only when given, so a stack without them keeps its function's environment: the
 * origins space-separated, the branding as JSON. The construct and the local stack both use it.
 */
export function portalEnvironment(settings: PortalSettings): Record<string, string> {
  const ancestors = settings.portalFrameAncestors ?? [];
  return {
    ...(ancestors.length === 0 ? {} : { [ENV.portalFrameAncestors]: ancestors.join(' ') }),
    ...(settings.portalBranding === undefined
      ? {}
      : { [ENV.portalBranding]: JSON.stringify(settings.portalBranding) }),
  };
}
