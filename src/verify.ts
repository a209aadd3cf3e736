// The service package's `esim-bundle-service/verify` is the client package's signature check
// (packages/client/src/verify.ts), so code written against either import keeps working.
export { verifyCallbackSignature } from 'esim-bundle-service-client/verify';
