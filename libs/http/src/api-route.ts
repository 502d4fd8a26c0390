import { applyDecorators, SetMetadata } from '@nestjs/common';
import { z } from 'zod';

export interface ApiError {
  status: number;
  code: string;
  description: string;
}

/** A route's contract: the schemas here validate requests and generate /doc, so they cannot drift. */
export interface ApiRouteSpec {
  summary: string;
  tags: string[];
  access: 'public' | 'session' | 'gated';
  body?: z.ZodType;
  /** The body's media type when it is not JSON (an OAuth form post). */
  bodyContentType?: string;
  query?: z.ZodObject;
  params?: z.ZodObject;
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
  errors?: ApiError[];
}

export const API_ROUTE = 'shop:api-route';

export interface RegisteredRoute {
  controller: object;
  handler: string;
  spec: ApiRouteSpec;
}

/** Every decorated route, collected at class definition for the OpenAPI document. */
export const registeredRoutes: RegisteredRoute[] = [];

export function ApiRoute(spec: ApiRouteSpec): MethodDecorator {
  return (target, key, descriptor) => {
    registeredRoutes.push({ controller: target.constructor, handler: String(key), spec });
    return applyDecorators(SetMetadata(API_ROUTE, spec))(target, key, descriptor);
  };
}
