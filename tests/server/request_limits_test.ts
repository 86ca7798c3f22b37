import assert from "node:assert/strict";
import { requestLimits } from "../../server/request_limits.ts";

Deno.test("requestLimits() has a default for each limit and reads each variable", () => {
  assert.deepEqual(requestLimits({}), {
    bodyTimeout: 30_000,
    uploadTimeout: 3_600_000,
    uploadMinRate: 4096,
    uploadRateWindow: 30_000,
    maxUploads: 32,
    maxUploadsPerUser: 8,
  });
  assert.deepEqual(
    requestLimits({
      SVC_API_BODY_TIMEOUT: "0.5",
      SVC_API_UPLOAD_TIMEOUT: "600",
      SVC_API_UPLOAD_MIN_RATE: "100",
      SVC_API_UPLOAD_RATE_WINDOW: "1.5",
      SVC_API_MAX_UPLOADS: "4",
      SVC_API_MAX_UPLOADS_PER_USER: " 2 ",
    }),
    {
      bodyTimeout: 500,
      uploadTimeout: 600_000,
      uploadMinRate: 100,
      uploadRateWindow: 1500,
      maxUploads: 4,
      maxUploadsPerUser: 2,
    },
  );
});

Deno.test("requestLimits() refuses a value that is not a positive number, naming its variable", () => {
  const cases: [Record<string, string>, string][] = [
    [
      { SVC_API_BODY_TIMEOUT: "0" },
      'SVC_API_BODY_TIMEOUT must be a positive number of seconds, not "0"',
    ],
    [
      { SVC_API_BODY_TIMEOUT: "soon" },
      'SVC_API_BODY_TIMEOUT must be a positive number of seconds, not "soon"',
    ],
    [
      { SVC_API_UPLOAD_MIN_RATE: "0.5" },
      'SVC_API_UPLOAD_MIN_RATE must be a positive number of bytes, not "0.5"',
    ],
    [
      { SVC_API_UPLOAD_TIMEOUT: "never" },
      'SVC_API_UPLOAD_TIMEOUT must be a positive number of seconds, not "never"',
    ],
    [
      { SVC_API_MAX_UPLOADS: "1.5" },
      'SVC_API_MAX_UPLOADS must be a positive whole number, not "1.5"',
    ],
    [
      { SVC_API_MAX_UPLOADS_PER_USER: "-1" },
      'SVC_API_MAX_UPLOADS_PER_USER must be a positive whole number, not "-1"',
    ],
  ];
  for (const [env, message] of cases) assert.throws(() => requestLimits(env), { message });
});
