/** The two request shapes the service shows. Kept free of zod so start-up paths can use it. */
export const SHAPES = ['flat', 'wrapped'] as const;
export type Shape = (typeof SHAPES)[number];
