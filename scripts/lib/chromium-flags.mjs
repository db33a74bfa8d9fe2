// Chromium's command-line flags, one copy for the browser tests (tests/browser/) and the
// benchmarks (bench/rows/):
//   CHROMIUM_BASE     headless, no sandbox (containers run as root), nothing fetched in the
//                     background
//   CHROMIUM_ARGS     the page tests: the base flags, no GPU, no QUIC
//   WEBGPU_FLAGS      WebGPU on top of the base flags, by adapter:
//                       swiftshader  Chromium's SwiftShader (Vulkan on the CPU): correct, slow;
//                                    what the WebGPU tests and the default bench rows use
//                       hardware     the machine's GPU through Vulkan (headless: no Vulkan
//                                    surface; the blocklist would refuse many server GPUs)
//   webgpuArgs(name)  CHROMIUM_BASE + WEBGPU_FLAGS[name]; an error for an unknown adapter
export const CHROMIUM_BASE = [
  '--headless',
  '--no-sandbox',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const CHROMIUM_ARGS = [...CHROMIUM_BASE, '--disable-gpu', '--disable-quic'];

export const WEBGPU_FLAGS = {
  swiftshader: ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-features=Vulkan'],
  hardware: [
    '--enable-unsafe-webgpu',
    '--enable-features=Vulkan',
    '--use-angle=vulkan',
    '--disable-vulkan-surface',
    '--ignore-gpu-blocklist',
  ],
};

export function webgpuArgs(adapter = 'swiftshader') {
  if (!Object.hasOwn(WEBGPU_FLAGS, adapter))
    throw new Error(`WebGPU adapter must be ${Object.keys(WEBGPU_FLAGS).join(' or ')}, got ${JSON.stringify(adapter)}`);
  return [...CHROMIUM_BASE, ...WEBGPU_FLAGS[adapter]];
}
