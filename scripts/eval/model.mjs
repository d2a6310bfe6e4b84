// The endpoint that writes the summaries and answers the questions: the one named by --base-url, or the local
// model of scripts/local-model.mjs, started for the run and stopped after it.

/**
 * `{ baseUrl, model, apiKey?, contextSize, stop() }`. With `baseUrl`, `model` is required and `contextSize` is the
 * endpoint's window as given (default 128 000: the endpoint itself refuses what does not fit). Without it, `model`
 * names one of the local models (`MODELS` in scripts/local-model.mjs; default its `DEFAULT_MODEL`).
 */
export async function openEndpoint({ baseUrl, model, apiKey, contextSize }) {
  if (baseUrl) {
    if (!model) throw new Error("--base-url needs --model");
    return { baseUrl, model, apiKey, contextSize: contextSize ?? 128_000, local: false, stop: async () => {} };
  }
  let startLocalModel;
  try {
    ({ startLocalModel } = await import("../local-model.mjs"));
  } catch (error) {
    throw new Error(`no local model (scripts/local-model.mjs: ${error.message}); pass --base-url and --model to use another endpoint`);
  }
  const local = await startLocalModel(model ? { model } : {});
  return { ...local, apiKey: undefined, contextSize: contextSize ?? local.contextSize, local: true, stop: () => local.stop() };
}
