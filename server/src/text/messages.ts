import { detectLanguage, type Language } from "./language.ts";

/** The agent's default fallback (`DEFAULT_FALLBACK`) in every language Lore detects. */
export const fallbackMessages = {
  en: "I couldn't find that in the knowledge base. Try rephrasing, or ask about something the documents cover.",
  es: "No encontré eso en la base de conocimientos. Intenta reformular la pregunta o pregunta sobre algo que cubran los documentos.",
  de: "Dazu habe ich in der Wissensdatenbank nichts gefunden. Formulieren Sie die Frage anders oder fragen Sie nach etwas, das die Dokumente abdecken.",
  fr: "Je n'ai pas trouvé cela dans la base de connaissances. Reformulez votre question ou posez-en une sur un sujet couvert par les documents.",
  pt: "Não encontrei isso na base de conhecimento. Tente reformular a pergunta ou pergunte sobre algo que os documentos abordem.",
  it: "Non ho trovato questa informazione nella base di conoscenza. Prova a riformulare la domanda o chiedi qualcosa di cui parlano i documenti.",
  nl: "Dat kon ik niet vinden in de kennisbank. Probeer je vraag anders te formuleren, of vraag iets waarover de documenten gaan.",
  pl: "Nie znalazłem tego w bazie wiedzy. Spróbuj inaczej sformułować pytanie lub zapytaj o coś, czego dotyczą dokumenty.",
  tr: "Bunu bilgi bankasında bulamadım. Sorunuzu farklı bir şekilde sormayı deneyin ya da belgelerin kapsadığı bir konuyu sorun.",
  ru: "Я не нашёл этого в базе знаний. Попробуйте переформулировать вопрос или спросите о том, что есть в документах.",
  uk: "Я не знайшов цього в базі знань. Спробуйте переформулювати запитання або запитайте про те, що є в документах.",
  ar: "لم أجد ذلك في قاعدة المعرفة. حاول إعادة صياغة سؤالك، أو اسأل عن شيء تتناوله المستندات.",
  hi: "मुझे यह जानकारी नॉलेज बेस में नहीं मिली। अपना प्रश्न दूसरे शब्दों में पूछें, या किसी ऐसे विषय के बारे में पूछें जो दस्तावेज़ों में शामिल हो।",
  zh: "我在知识库中没有找到相关内容。请换一种说法，或询问文档涵盖的内容。",
  ja: "ナレッジベースにその情報は見つかりませんでした。言い換えてお試しいただくか、ドキュメントで扱われている内容についてお尋ねください。",
  ko: "지식 베이스에서 해당 내용을 찾지 못했습니다. 질문을 바꿔 보시거나 문서에서 다루는 내용에 대해 물어보세요.",
} as const satisfies Record<Language, string>;

/**
 * The fallback message for one question: an agent's own message verbatim, the untouched default
 * in the agent's language when it has one, else in the question's detected language (English when
 * it cannot tell).
 */
export function localizeFallback(
  configured: string,
  question: string,
  language: Language | null = null,
): string {
  if (configured.trim() !== fallbackMessages.en) return configured;
  return fallbackMessages[language ?? detectLanguage(question) ?? "en"];
}
