// Every test process talks to local emulators only, with dummy credentials.
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.LOG_LEVEL ??= 'silent';
// DynamoDB Local and fauxqs on a busy machine: allow 10 s per answer (shared/config.ts awsClientLimits).
process.env.AWS_REQUEST_TIMEOUT_MS ??= '10000';
