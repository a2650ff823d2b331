// Task: What kind of image does get-tiny-image return, and how big is it? Do not send me the image data itself.
const blocks: { type: string; mimeType?: string; bytes?: number }[] = await tools.everything.get_tiny_image();
const images = blocks.filter((block) => block.type === "image");
return {
  blocks: blocks.map((block) => block.type),
  images: images.map((image) => ({ mimeType: image.mimeType, bytes: image.bytes })),
};
