import { Metadata } from '@grpc/grpc-js';

/** Metadata carrying this exact `authorization` value (hostile ones included), or none. */
export function authorizationMetadata(authorization: string | undefined): Metadata {
  const metadata = new Metadata();
  if (authorization !== undefined) metadata.set('authorization', authorization);
  return metadata;
}

/** `authorization: Bearer <token>`. */
export const bearer = (token: string): Metadata => authorizationMetadata(`Bearer ${token}`);
