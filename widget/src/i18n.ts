// Every visible string of the widget, per language. English is the reference table; the others
// must name every key (checked by `satisfies`), so a missing translation fails type checking.
const en = {
  openChat: "Open chat",
  closeChat: "Close chat",
  close: "Close",
  newConversation: "New conversation",
  inputLabel: "Your question",
  placeholder: "Ask a question…",
  send: "Send",
  stop: "Stop",
  suggestions: "Suggested questions",
  conversation: "Conversation",
  you: "You",
  assistant: "Assistant",
  sources: "Sources",
  openSource: "Open source",
  sourceMarker: "Show source {n}",
  copy: "Copy answer",
  copied: "Copied",
  helpful: "Helpful",
  notHelpful: "Not helpful",
  feedbackThanks: "Thanks for your feedback",
  thinking: "Thinking…",
  loading: "Loading…",
  stopped: "Stopped",
  failed: "Not answered",
  retry: "Try again",
  rateLimited: "You're sending messages too quickly. You can ask again in {s} s.",
  processing: "This assistant is still learning. Please try again shortly.",
  originRefused: "This chat isn't enabled on this site.",
  notFound: "This chat isn't available.",
  offline: "You seem to be offline. Check your connection and try again.",
  upstream: "The answer service is unavailable right now. Please try again.",
  server: "Something went wrong. Please try again.",
  interrupted: "The answer was interrupted. Please try again.",
  tooLong: "That message is too long. Please shorten it.",
  feedbackFailed: "Your feedback couldn't be sent.",
} as const;

export type MessageKey = keyof typeof en;
type Table = Record<MessageKey, string>;

const ar = {
  openChat: "افتح المحادثة",
  closeChat: "أغلق المحادثة",
  close: "إغلاق",
  newConversation: "محادثة جديدة",
  inputLabel: "سؤالك",
  placeholder: "اطرح سؤالاً…",
  send: "إرسال",
  stop: "إيقاف",
  suggestions: "أسئلة مقترحة",
  conversation: "المحادثة",
  you: "أنت",
  assistant: "المساعد",
  sources: "المصادر",
  openSource: "افتح المصدر",
  sourceMarker: "اعرض المصدر {n}",
  copy: "انسخ الإجابة",
  copied: "تم النسخ",
  helpful: "مفيد",
  notHelpful: "غير مفيد",
  feedbackThanks: "شكراً على ملاحظاتك",
  thinking: "جارٍ التفكير…",
  loading: "جارٍ التحميل…",
  stopped: "توقفت",
  failed: "لم تتم الإجابة",
  retry: "حاول مجدداً",
  rateLimited: "أنت ترسل الرسائل بسرعة كبيرة. يمكنك السؤال مجدداً بعد {s} ث.",
  processing: "لا يزال هذا المساعد يتعلم. يرجى المحاولة بعد قليل.",
  originRefused: "هذه المحادثة غير مفعّلة على هذا الموقع.",
  notFound: "هذه المحادثة غير متاحة.",
  offline: "يبدو أنك غير متصل. تحقق من الاتصال وحاول مجدداً.",
  upstream: "خدمة الإجابة غير متاحة الآن. يرجى المحاولة مجدداً.",
  server: "حدث خطأ ما. يرجى المحاولة مجدداً.",
  interrupted: "انقطعت الإجابة. يرجى المحاولة مجدداً.",
  tooLong: "الرسالة طويلة جداً. يرجى اختصارها.",
  feedbackFailed: "تعذّر إرسال ملاحظاتك.",
} satisfies Table;

const he = {
  openChat: "פתיחת הצ׳אט",
  closeChat: "סגירת הצ׳אט",
  close: "סגירה",
  newConversation: "שיחה חדשה",
  inputLabel: "השאלה שלך",
  placeholder: "שאלו שאלה…",
  send: "שליחה",
  stop: "עצירה",
  suggestions: "שאלות מוצעות",
  conversation: "שיחה",
  you: "את/ה",
  assistant: "העוזר",
  sources: "מקורות",
  openSource: "פתיחת המקור",
  sourceMarker: "הצגת מקור {n}",
  copy: "העתקת התשובה",
  copied: "הועתק",
  helpful: "מועיל",
  notHelpful: "לא מועיל",
  feedbackThanks: "תודה על המשוב",
  thinking: "חושב…",
  loading: "טוען…",
  stopped: "נעצר",
  failed: "לא נענה",
  retry: "נסו שוב",
  rateLimited: "נשלחות הודעות מהר מדי. אפשר לשאול שוב בעוד {s} שנ׳.",
  processing: "העוזר עדיין לומד. נסו שוב בעוד רגע.",
  originRefused: "הצ׳אט הזה אינו מופעל באתר הזה.",
  notFound: "הצ׳אט הזה אינו זמין.",
  offline: "נראה שאין חיבור לרשת. בדקו את החיבור ונסו שוב.",
  upstream: "שירות התשובות אינו זמין כרגע. נסו שוב.",
  server: "משהו השתבש. נסו שוב.",
  interrupted: "התשובה נקטעה. נסו שוב.",
  tooLong: "ההודעה ארוכה מדי. נא לקצר אותה.",
  feedbackFailed: "לא ניתן היה לשלוח את המשוב.",
} satisfies Table;

const tables: Record<string, Table> = { en, ar, he };
const rtl = new Set(["ar", "he", "fa", "ur"]);

export interface Translator {
  lang: string;
  dir: "ltr" | "rtl";
  t: (key: MessageKey, vars?: Record<string, string | number>) => string;
}

/** Picks the first supported language among the explicit option, the page's lang and the browser's. */
export function resolveLanguage(candidates: ReadonlyArray<string | null | undefined>): string {
  for (const candidate of candidates) {
    const base = candidate?.toLowerCase().split(/[-_]/)[0];
    if (base && base in tables) return base;
  }
  return "en";
}

export function createTranslator(lang: string): Translator {
  const table = tables[lang] ?? en;
  return {
    lang: lang in tables ? lang : "en",
    dir: rtl.has(lang) ? "rtl" : "ltr",
    t: (key, vars) =>
      table[key].replace(/\{(\w+)\}/g, (whole, name: string) => String(vars?.[name] ?? whole)),
  };
}
