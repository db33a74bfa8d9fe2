// Whether a WebGPU adapter (its name as web/gpu/table.js gives it: vendor, architecture,
// description) is a software renderer, WebGPU computed on the CPU rather than a GPU: Chromium's
// SwiftShader, Mesa's llvmpipe and lavapipe, Windows' Basic Render Driver.
export const softwareAdapter = (name) => /swiftshader|llvmpipe|lavapipe|basic render/i.test(String(name ?? ''));
