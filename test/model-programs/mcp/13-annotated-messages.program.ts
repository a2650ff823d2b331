// Task: What text does get-annotated-message produce for each message type (error, success, debug)?
async function main() {
  const types = ["error", "success", "debug"] as const;
  const answers = await Promise.all(types.map((messageType) => tools.everything.get_annotated_message({ messageType })));
  const texts: Record<string, string[]> = {};
  answers.forEach((blocks, i) => {
    texts[types[i]!] = (blocks as { type: string; text?: string }[])
      .filter((block) => block.type === "text")
      .map((block) => block.text ?? "");
  });
  return texts;
}
