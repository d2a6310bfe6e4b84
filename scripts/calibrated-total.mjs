// The package's calibrated total (src/counting/calibration.rs), written again in JavaScript for
// scripts/fit-profiles.mjs, which scores candidate tables (gemini's target, calibrated on the first three
// reports) before any wasm is built from them. pkg-tests/calibration-mirror.test.mjs checks that it gives
// what the package gives, request for request: change both together.

// src/counting/calibration.rs's constants.
const MIN_SCALE_SPAN = 30;
const DOWN_NOISE = 1.0;
const SCALE_RANGE = [0.5, 2.0];

/**
 * The package's calibrated total (src/counting/calibration.rs, mirrored): the last report's tokens, plus the
 * messages after it times a scale read from the reports. `perMessage` holds the rounded per-message
 * estimates, `overhead` the request's tokens outside them, `reports` `[messageCount, promptTokens]`.
 */
export function calibratedTotal(perMessage, overhead, reports, n) {
  const sum = (a, b) => perMessage.slice(a, b).reduce((s, v) => s + v, 0);
  const correction = (reported, estimated) => {
    if (estimated < MIN_SCALE_SPAN) return null;
    const d = reported / estimated - 1;
    return d >= 0 ? d : Math.min(d + DOWN_NOISE / Math.sqrt(estimated), 0);
  };
  const [first, last] = [reports[0], reports[reports.length - 1]];
  const prefix = overhead + sum(0, last[0]);
  const request = correction(last[1], prefix);
  let growth = null;
  if (first[0] < last[0]) growth = last[1] >= first[1] ? correction(last[1] - first[1], sum(first[0], last[0])) : 0;
  let moved = 0;
  if (request !== null && growth === null) moved = request;
  else if (request !== null && request * growth > 0) moved = Math.abs(request) < Math.abs(growth) ? request : growth;
  const scale = Math.min(SCALE_RANGE[1], Math.max(SCALE_RANGE[0], 1 + moved));
  return last[1] + Math.ceil(sum(last[0], n) * scale);
}
