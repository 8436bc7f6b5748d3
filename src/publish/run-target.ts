import { createHash } from 'node:crypto';
import type { Shape } from '../contract/shapes.js';

/**
 * Where a run publishes: the service, the workspace behind the key, the default marketplace and the request shape.
 * The journal and the `--changed-only` state belong to one source *and* one target, so that what a try-out against
 * the sandbox or staging published is never taken as published in production.
 */
export interface RunTarget {
  /** The base URL without credentials, query or trailing slash; `sandbox` for `--sandbox`. */
  service: string;
  /** A one-way fingerprint of the API key (never the key); `sandbox` for `--sandbox`. */
  workspace: string;
  /**
   * The default marketplace, or `(per row)` when the rows name it; for a run to several marketplaces all of them,
   * sorted and comma-separated (`EBAY_GB,EBAY_US`).
   */
  marketplace: string;
  shape: Shape;
}

/** The settings a run's target is made of (see runTarget); the key is kept only as its fingerprint. */
export interface TargetSettings {
  baseUrl: string;
  apiKey: string;
  marketplace: string | undefined;
  shape: Shape;
}

/** The target of a run against a service. */
export function runTarget(settings: TargetSettings): RunTarget {
  return {
    service: serviceOf(settings.baseUrl),
    workspace: keyFingerprint(settings.apiKey),
    marketplace: targetMarketplace(settings.marketplace),
    shape: settings.shape,
  };
}

/** The target of a `--sandbox` run: every in-process sandbox is the same target (its port and key change per run). */
export function sandboxTarget(marketplace: string | undefined, shape: Shape): RunTarget {
  return { service: 'sandbox', workspace: 'sandbox', marketplace: targetMarketplace(marketplace), shape };
}

const PER_ROW = '(per row)';

/** The marketplace setting as a target names it: one as it is; several sorted, so their order does not matter. */
function targetMarketplace(setting: string | undefined): string {
  if (setting === undefined || setting === '') return PER_ROW;
  return setting.includes(',') ? [...new Set(setting.split(','))].sort().join(',') : setting;
}

/**
 * 16 hex digits of a domain-separated SHA-256 of the key: enough to tell two workspaces apart, and no way back to
 * the key (nor a hash that could be looked up against the key's plain SHA-256 elsewhere).
 */
export function keyFingerprint(apiKey: string): string {
  return createHash('sha256').update(`listings workspace fingerprint\n${apiKey}`).digest('hex').slice(0, 16);
}

function serviceOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl;
  }
}

/** True when two targets are the same (field by field). */
export function sameTarget(a: RunTarget, b: RunTarget): boolean {
  return a.service === b.service && a.workspace === b.workspace && a.marketplace === b.marketplace && a.shape === b.shape;
}

/** 8 hex digits naming the target in default file names. */
export function targetId(target: RunTarget): string {
  return createHash('sha256').update(JSON.stringify([target.service, target.workspace, target.marketplace, target.shape])).digest('hex').slice(0, 8);
}

/** `https://api.example.com (EBAY_US, flat, workspace 1a2b…)`: for notices; holds no secret. */
export function describeTarget(target: RunTarget): string {
  const workspace = target.workspace === 'sandbox' ? '' : `, workspace ${target.workspace.slice(0, 8)}`;
  return `${target.service} (${target.marketplace}, ${target.shape}${workspace})`;
}

/** The target a journal or state header recorded, or undefined when it holds none that is well formed. */
export function parseTarget(value: unknown): RunTarget | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { service, workspace, marketplace, shape } = value as Record<string, unknown>;
  if (typeof service !== 'string' || typeof workspace !== 'string' || typeof marketplace !== 'string') return undefined;
  if (shape !== 'flat' && shape !== 'wrapped') return undefined;
  return { service, workspace, marketplace, shape };
}
