// Task: Ask the everything server for 4 resource links and list their names and MIME types.
const blocks = await tools.everything.get_resource_links({ count: 4 });
const links = (blocks as { type: string; name?: string; uri?: string; mimeType?: string }[])
  .filter((block) => block.type === "resource_link")
  .map((block) => ({ name: block.name, mimeType: block.mimeType }));
return { links, intro: (blocks as { type: string; text?: string }[]).find((block) => block.type === "text")?.text ?? null };
