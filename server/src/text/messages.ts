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

/** The note an `uncertain` answer starts with (after a chat model's answer, ends with), per language. */
export const uncertainNotices = {
  en: "I'm not sure this answers your question. The closest passage I found is below; the sources listed may help.",
  es: "No estoy seguro de que esto responda a tu pregunta. Abajo está el pasaje más cercano que encontré; las fuentes indicadas pueden ayudarte.",
  de: "Ich bin nicht sicher, ob das Ihre Frage beantwortet. Unten steht die passendste Stelle, die ich gefunden habe; die genannten Quellen können helfen.",
  fr: "Je ne suis pas sûr que cela réponde à votre question. Voici le passage le plus proche que j'ai trouvé ; les sources indiquées peuvent vous aider.",
  pt: "Não tenho certeza de que isto responde à sua pergunta. Abaixo está o trecho mais próximo que encontrei; as fontes listadas podem ajudar.",
  it: "Non sono sicuro che questo risponda alla tua domanda. Qui sotto c'è il passaggio più vicino che ho trovato; le fonti elencate possono aiutarti.",
  nl: "Ik weet niet zeker of dit je vraag beantwoordt. Hieronder staat de passage die er het dichtst bij komt; de genoemde bronnen kunnen helpen.",
  pl: "Nie jestem pewien, czy to odpowiada na Twoje pytanie. Poniżej jest najbliższy fragment, jaki znalazłem; wymienione źródła mogą pomóc.",
  tr: "Bunun sorunuzu yanıtladığından emin değilim. Bulduğum en yakın bölüm aşağıda; listelenen kaynaklar yardımcı olabilir.",
  ru: "Не уверен, что это отвечает на ваш вопрос. Ниже — самый близкий фрагмент, который я нашёл; указанные источники могут помочь.",
  uk: "Не впевнений, що це відповідає на ваше запитання. Нижче — найближчий фрагмент, який я знайшов; наведені джерела можуть допомогти.",
  ar: "لست متأكدًا من أن هذا يجيب عن سؤالك. أقرب مقطع وجدته أدناه؛ وقد تساعدك المصادر المذكورة.",
  hi: "मुझे यकीन नहीं है कि इससे आपके प्रश्न का उत्तर मिलता है। मुझे मिला सबसे निकट अंश नीचे है; सूचीबद्ध स्रोत मदद कर सकते हैं।",
  zh: "我不确定这是否回答了您的问题。下面是我找到的最接近的段落；列出的来源可能会有所帮助。",
  ja: "ご質問への答えになっているか確信がありません。見つかった最も近い箇所を以下に示します。記載の情報源が役立つかもしれません。",
  ko: "질문에 대한 답인지 확실하지 않습니다. 가장 가까운 내용을 아래에 보여 드리며, 나열된 출처가 도움이 될 수 있습니다.",
} as const satisfies Record<Language, string>;

/** The uncertain note in the agent's language, else the question's (English when it cannot tell). */
export function localizeUncertain(question: string, language: Language | null = null): string {
  return uncertainNotices[language ?? detectLanguage(question) ?? "en"];
}

/**
 * The line before a passage quoted from documents in another language than the question's (the
 * dictionaries translate into English, so the documents found that way are English), per the
 * visitor's language.
 */
export const crossLanguageNotes = {
  en: "I found this in the English documents:",
  es: "Encontré esto en los documentos en inglés:",
  de: "Das habe ich in den englischen Dokumenten gefunden:",
  fr: "J'ai trouvé ceci dans les documents en anglais :",
  pt: "Encontrei isto nos documentos em inglês:",
  it: "Ho trovato questo nei documenti in inglese:",
  nl: "Dit vond ik in de Engelstalige documenten:",
  pl: "Znalazłem to w dokumentach w języku angielskim:",
  tr: "Bunu İngilizce belgelerde buldum:",
  ru: "Я нашёл это в документах на английском языке:",
  uk: "Я знайшов це в документах англійською мовою:",
  ar: "وجدت هذا في المستندات باللغة الإنجليزية:",
  hi: "मुझे यह अंग्रेज़ी दस्तावेज़ों में मिला:",
  zh: "我在英文文档中找到了以下内容：",
  ja: "英語のドキュメントで次の内容が見つかりました：",
  ko: "영어 문서에서 다음 내용을 찾았습니다:",
} as const satisfies Record<Language, string>;
