// Every visible string of the widget in every language but English (translate.ts). This module is
// its own chunk: the panel imports it only for a page in another language. Each language is one
// row of strings in the order of `keys` (a key's name once, not once per language: the chunk is
// about half the size gzipped); `Row` is a tuple as long as `keys`, so a missing or extra
// translation fails type checking, and `keys` must name every key of the English table.
import { en, type MessageKey, type Table, type Translator, translatorFor } from "./translate.ts";

export { en, type MessageKey, resolveLanguage, type Translator, waitText } from "./translate.ts";

const keys = [
  "openChat",
  "closeChat",
  "close",
  "newConversation",
  "inputLabel",
  "placeholder",
  "send",
  "stop",
  "suggestions",
  "conversation",
  "you",
  "assistant",
  "sources",
  "openSource",
  "sourceMarker",
  "copy",
  "showSection",
  "minuteForms",
  "copied",
  "helpful",
  "notHelpful",
  "feedbackThanks",
  "thinking",
  "loading",
  "stopped",
  "failed",
  "retry",
  "rateLimited",
  "rateLimitedMinutes",
  "processing",
  "originRefused",
  "notFound",
  "offline",
  "unreachable",
  "upstream",
  "server",
  "interrupted",
  "tooLong",
  "feedbackFailed",
  "contactUs",
  "uncertain",
  "email",
  "message",
  "contactSent",
  "badEmail",
  "badMessage",
  "whatWrong",
  "reasonWrong",
  "reasonUnanswered",
  "reasonOutdated",
  "reasonOther",
  "newMessage",
] as const satisfies readonly MessageKey[];

// One string for each of `keys`, or `never` (so every row fails type checking) while `keys` leaves
// out a key of the English table.
type Row = [MessageKey] extends [(typeof keys)[number]] ? Strings<typeof keys> : never;
type Strings<T extends readonly unknown[]> = { -readonly [I in keyof T]: string };

const ar: Row = [
  "افتح المحادثة", // openChat
  "أغلق المحادثة", // closeChat
  "إغلاق", // close
  "محادثة جديدة", // newConversation
  "سؤالك", // inputLabel
  "اطرح سؤالاً…", // placeholder
  "إرسال", // send
  "إيقاف", // stop
  "أسئلة مقترحة", // suggestions
  "المحادثة", // conversation
  "أنت", // you
  "المساعد", // assistant
  "المصادر", // sources
  "افتح المصدر", // openSource
  "اعرض المصدر {n}", // sourceMarker
  "انسخ الإجابة", // copy
  "اعرض القسم كاملاً", // showSection
  "-", // minuteForms
  "تم النسخ", // copied
  "مفيد", // helpful
  "غير مفيد", // notHelpful
  "شكراً على ملاحظاتك", // feedbackThanks
  "جارٍ التفكير…", // thinking
  "جارٍ التحميل…", // loading
  "توقفت", // stopped
  "لم تتم الإجابة", // failed
  "حاول مجدداً", // retry
  "أنت ترسل الرسائل بسرعة كبيرة. يمكنك السؤال مجدداً بعد {s} ث.", // rateLimited
  "أنت ترسل الرسائل بسرعة كبيرة. يمكنك السؤال مجدداً بعد نحو {m}.", // rateLimitedMinutes
  "لا يزال هذا المساعد يتعلم. يرجى المحاولة بعد قليل.", // processing
  "هذه المحادثة غير مفعّلة على هذا الموقع.", // originRefused
  "هذه المحادثة غير متاحة.", // notFound
  "يبدو أنك غير متصل. تحقق من الاتصال وحاول مجدداً.", // offline
  "تعذّر الوصول إلى المساعد الآن. يرجى المحاولة بعد قليل.", // unreachable
  "خدمة الإجابة غير متاحة الآن. يرجى المحاولة مجدداً.", // upstream
  "حدث خطأ ما. يرجى المحاولة مجدداً.", // server
  "انقطعت الإجابة. يرجى المحاولة مجدداً.", // interrupted
  "الرسالة طويلة جداً. يرجى اختصارها.", // tooLong
  "تعذّر إرسال ملاحظاتك.", // feedbackFailed
  "تواصل معنا", // contactUs
  "لست متأكداً — قد تفيدك هذه المقالات:", // uncertain
  "بريدك الإلكتروني", // email
  "الرسالة", // message
  "شكراً! سنرد عليك بالبريد الإلكتروني.", // contactSent
  "أدخل عنوان بريد إلكتروني صالحاً.", // badEmail
  "اكتب رسالة.", // badMessage
  "ما المشكلة؟", // whatWrong
  "إجابة خاطئة", // reasonWrong
  "لم تجب عن سؤالي", // reasonUnanswered
  "معلومات قديمة", // reasonOutdated
  "أخرى", // reasonOther
  "رسالة جديدة", // newMessage
];

const he: Row = [
  "פתיחת הצ׳אט", // openChat
  "סגירת הצ׳אט", // closeChat
  "סגירה", // close
  "שיחה חדשה", // newConversation
  "השאלה שלך", // inputLabel
  "שאלו שאלה…", // placeholder
  "שליחה", // send
  "עצירה", // stop
  "שאלות מוצעות", // suggestions
  "שיחה", // conversation
  "את/ה", // you
  "העוזר", // assistant
  "מקורות", // sources
  "פתיחת המקור", // openSource
  "הצגת מקור {n}", // sourceMarker
  "העתקת התשובה", // copy
  "הצג את הקטע המלא", // showSection
  "-", // minuteForms
  "הועתק", // copied
  "מועיל", // helpful
  "לא מועיל", // notHelpful
  "תודה על המשוב", // feedbackThanks
  "חושב…", // thinking
  "טוען…", // loading
  "נעצר", // stopped
  "לא נענה", // failed
  "נסו שוב", // retry
  "נשלחות הודעות מהר מדי. אפשר לשאול שוב בעוד {s} שנ׳.", // rateLimited
  "נשלחות הודעות מהר מדי. אפשר לשאול שוב בעוד כ־{m}.", // rateLimitedMinutes
  "העוזר עדיין לומד. נסו שוב בעוד רגע.", // processing
  "הצ׳אט הזה אינו מופעל באתר הזה.", // originRefused
  "הצ׳אט הזה אינו זמין.", // notFound
  "נראה שאין חיבור לרשת. בדקו את החיבור ונסו שוב.", // offline
  "אין גישה לעוזר כרגע. נסו שוב בעוד רגע.", // unreachable
  "שירות התשובות אינו זמין כרגע. נסו שוב.", // upstream
  "משהו השתבש. נסו שוב.", // server
  "התשובה נקטעה. נסו שוב.", // interrupted
  "ההודעה ארוכה מדי. נא לקצר אותה.", // tooLong
  "לא ניתן היה לשלוח את המשוב.", // feedbackFailed
  "צרו קשר", // contactUs
  "לא בטוח — ייתכן שהמאמרים האלה יעזרו:", // uncertain
  "כתובת הדוא״ל שלך", // email
  "הודעה", // message
  "תודה! נחזור אליכם בדוא״ל.", // contactSent
  "הזינו כתובת דוא״ל תקינה.", // badEmail
  "כתבו הודעה.", // badMessage
  "מה לא היה בסדר?", // whatWrong
  "תשובה שגויה", // reasonWrong
  "לא ענה על השאלה שלי", // reasonUnanswered
  "לא מעודכן", // reasonOutdated
  "אחר", // reasonOther
  "הודעה חדשה", // newMessage
];

const es: Row = [
  "Abrir chat", // openChat
  "Cerrar chat", // closeChat
  "Cerrar", // close
  "Nueva conversación", // newConversation
  "Tu pregunta", // inputLabel
  "Haz una pregunta…", // placeholder
  "Enviar", // send
  "Detener", // stop
  "Preguntas sugeridas", // suggestions
  "Conversación", // conversation
  "Tú", // you
  "Asistente", // assistant
  "Fuentes", // sources
  "Abrir fuente", // openSource
  "Mostrar fuente {n}", // sourceMarker
  "Copiar respuesta", // copy
  "Mostrar la sección completa", // showSection
  "-", // minuteForms
  "Copiado", // copied
  "Útil", // helpful
  "No útil", // notHelpful
  "Gracias por tu opinión", // feedbackThanks
  "Pensando…", // thinking
  "Cargando…", // loading
  "Detenido", // stopped
  "Sin respuesta", // failed
  "Reintentar", // retry
  "Estás enviando mensajes demasiado rápido. Puedes volver a preguntar en {s} s.", // rateLimited
  "Estás enviando mensajes demasiado rápido. Puedes volver a preguntar en aproximadamente {m}.", // rateLimitedMinutes
  "Este asistente todavía está aprendiendo. Inténtalo de nuevo en breve.", // processing
  "Este chat no está habilitado en este sitio.", // originRefused
  "Este chat no está disponible.", // notFound
  "Parece que no tienes conexión. Compruébala e inténtalo de nuevo.", // offline
  "No se puede contactar con el asistente ahora mismo. Inténtalo de nuevo en un momento.", // unreachable
  "El servicio de respuestas no está disponible ahora. Inténtalo de nuevo.", // upstream
  "Algo salió mal. Inténtalo de nuevo.", // server
  "La respuesta se interrumpió. Inténtalo de nuevo.", // interrupted
  "El mensaje es demasiado largo. Acórtalo, por favor.", // tooLong
  "No se pudo enviar tu opinión.", // feedbackFailed
  "Contáctanos", // contactUs
  "No estoy seguro: estos artículos pueden ayudarte:", // uncertain
  "Tu correo electrónico", // email
  "Mensaje", // message
  "¡Gracias! Te responderemos por correo.", // contactSent
  "Escribe un correo electrónico válido.", // badEmail
  "Escribe un mensaje.", // badMessage
  "¿Qué falló?", // whatWrong
  "Respuesta incorrecta", // reasonWrong
  "No respondió a mi pregunta", // reasonUnanswered
  "Desactualizada", // reasonOutdated
  "Otro", // reasonOther
  "Nuevo mensaje", // newMessage
];

const de: Row = [
  "Chat öffnen", // openChat
  "Chat schließen", // closeChat
  "Schließen", // close
  "Neue Unterhaltung", // newConversation
  "Ihre Frage", // inputLabel
  "Stellen Sie eine Frage…", // placeholder
  "Senden", // send
  "Stopp", // stop
  "Vorgeschlagene Fragen", // suggestions
  "Unterhaltung", // conversation
  "Sie", // you
  "Assistent", // assistant
  "Quellen", // sources
  "Quelle öffnen", // openSource
  "Quelle {n} anzeigen", // sourceMarker
  "Antwort kopieren", // copy
  "Ganzen Abschnitt anzeigen", // showSection
  "-", // minuteForms
  "Kopiert", // copied
  "Hilfreich", // helpful
  "Nicht hilfreich", // notHelpful
  "Danke für Ihr Feedback", // feedbackThanks
  "Denkt nach…", // thinking
  "Wird geladen…", // loading
  "Gestoppt", // stopped
  "Nicht beantwortet", // failed
  "Erneut versuchen", // retry
  "Sie senden Nachrichten zu schnell. Sie können in {s} s wieder fragen.", // rateLimited
  "Sie senden Nachrichten zu schnell. Sie können in etwa {m} wieder fragen.", // rateLimitedMinutes
  "Dieser Assistent lernt noch. Bitte versuchen Sie es gleich noch einmal.", // processing
  "Dieser Chat ist auf dieser Website nicht aktiviert.", // originRefused
  "Dieser Chat ist nicht verfügbar.", // notFound
  "Sie scheinen offline zu sein. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.", // offline
  "Der Assistent ist gerade nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.", // unreachable
  "Der Antwortdienst ist gerade nicht erreichbar. Bitte versuchen Sie es erneut.", // upstream
  "Etwas ist schiefgelaufen. Bitte versuchen Sie es erneut.", // server
  "Die Antwort wurde unterbrochen. Bitte versuchen Sie es erneut.", // interrupted
  "Die Nachricht ist zu lang. Bitte kürzen Sie sie.", // tooLong
  "Ihr Feedback konnte nicht gesendet werden.", // feedbackFailed
  "Kontakt", // contactUs
  "Nicht sicher – diese Artikel könnten helfen:", // uncertain
  "Ihre E-Mail-Adresse", // email
  "Nachricht", // message
  "Danke! Wir antworten Ihnen per E-Mail.", // contactSent
  "Geben Sie eine gültige E-Mail-Adresse ein.", // badEmail
  "Schreiben Sie eine Nachricht.", // badMessage
  "Was war falsch?", // whatWrong
  "Falsche Antwort", // reasonWrong
  "Hat meine Frage nicht beantwortet", // reasonUnanswered
  "Veraltet", // reasonOutdated
  "Anderes", // reasonOther
  "Neue Nachricht", // newMessage
];

const fr: Row = [
  "Ouvrir le chat", // openChat
  "Fermer le chat", // closeChat
  "Fermer", // close
  "Nouvelle conversation", // newConversation
  "Votre question", // inputLabel
  "Posez une question…", // placeholder
  "Envoyer", // send
  "Arrêter", // stop
  "Questions suggérées", // suggestions
  "Conversation", // conversation
  "Vous", // you
  "Assistant", // assistant
  "Sources", // sources
  "Ouvrir la source", // openSource
  "Afficher la source {n}", // sourceMarker
  "Copier la réponse", // copy
  "Afficher toute la section", // showSection
  "-", // minuteForms
  "Copié", // copied
  "Utile", // helpful
  "Pas utile", // notHelpful
  "Merci pour votre avis", // feedbackThanks
  "Réflexion…", // thinking
  "Chargement…", // loading
  "Arrêté", // stopped
  "Sans réponse", // failed
  "Réessayer", // retry
  "Vous envoyez des messages trop vite. Vous pourrez reposer une question dans {s} s.", // rateLimited
  "Vous envoyez des messages trop vite. Vous pourrez reposer une question dans environ {m}.", // rateLimitedMinutes
  "Cet assistant apprend encore. Réessayez dans un instant.", // processing
  "Ce chat n'est pas activé sur ce site.", // originRefused
  "Ce chat n'est pas disponible.", // notFound
  "Vous semblez hors ligne. Vérifiez votre connexion et réessayez.", // offline
  "Impossible de joindre l’assistant pour le moment. Réessayez dans un instant.", // unreachable
  "Le service de réponse est indisponible pour le moment. Réessayez.", // upstream
  "Un problème est survenu. Réessayez.", // server
  "La réponse a été interrompue. Réessayez.", // interrupted
  "Ce message est trop long. Raccourcissez-le.", // tooLong
  "Votre avis n'a pas pu être envoyé.", // feedbackFailed
  "Nous contacter", // contactUs
  "Pas sûr — ces articles peuvent vous aider :", // uncertain
  "Votre e-mail", // email
  "Message", // message
  "Merci ! Nous vous répondrons par e-mail.", // contactSent
  "Saisissez une adresse e-mail valide.", // badEmail
  "Écrivez un message.", // badMessage
  "Qu'est-ce qui n'allait pas ?", // whatWrong
  "Mauvaise réponse", // reasonWrong
  "N'a pas répondu à ma question", // reasonUnanswered
  "Obsolète", // reasonOutdated
  "Autre", // reasonOther
  "Nouveau message", // newMessage
];

const pt: Row = [
  "Abrir chat", // openChat
  "Fechar chat", // closeChat
  "Fechar", // close
  "Nova conversa", // newConversation
  "Sua pergunta", // inputLabel
  "Faça uma pergunta…", // placeholder
  "Enviar", // send
  "Parar", // stop
  "Perguntas sugeridas", // suggestions
  "Conversa", // conversation
  "Você", // you
  "Assistente", // assistant
  "Fontes", // sources
  "Abrir fonte", // openSource
  "Mostrar fonte {n}", // sourceMarker
  "Copiar resposta", // copy
  "Mostrar a seção completa", // showSection
  "-", // minuteForms
  "Copiado", // copied
  "Útil", // helpful
  "Não útil", // notHelpful
  "Obrigado pelo seu feedback", // feedbackThanks
  "Pensando…", // thinking
  "Carregando…", // loading
  "Interrompido", // stopped
  "Sem resposta", // failed
  "Tentar novamente", // retry
  "Você está enviando mensagens rápido demais. Pode perguntar de novo em {s} s.", // rateLimited
  "Você está enviando mensagens rápido demais. Pode perguntar de novo em cerca de {m}.", // rateLimitedMinutes
  "Este assistente ainda está aprendendo. Tente novamente em instantes.", // processing
  "Este chat não está ativado neste site.", // originRefused
  "Este chat não está disponível.", // notFound
  "Parece que você está offline. Verifique sua conexão e tente novamente.", // offline
  "Não é possível contactar o assistente agora. Tente de novo daqui a pouco.", // unreachable
  "O serviço de respostas está indisponível no momento. Tente novamente.", // upstream
  "Algo deu errado. Tente novamente.", // server
  "A resposta foi interrompida. Tente novamente.", // interrupted
  "A mensagem é longa demais. Encurte-a, por favor.", // tooLong
  "Não foi possível enviar seu feedback.", // feedbackFailed
  "Fale conosco", // contactUs
  "Não tenho certeza — estes artigos podem ajudar:", // uncertain
  "Seu e-mail", // email
  "Mensagem", // message
  "Obrigado! Responderemos por e-mail.", // contactSent
  "Informe um endereço de e-mail válido.", // badEmail
  "Escreva uma mensagem.", // badMessage
  "O que estava errado?", // whatWrong
  "Resposta errada", // reasonWrong
  "Não respondeu à minha pergunta", // reasonUnanswered
  "Desatualizada", // reasonOutdated
  "Outro", // reasonOther
  "Nova mensagem", // newMessage
];

const it: Row = [
  "Apri la chat", // openChat
  "Chiudi la chat", // closeChat
  "Chiudi", // close
  "Nuova conversazione", // newConversation
  "La tua domanda", // inputLabel
  "Fai una domanda…", // placeholder
  "Invia", // send
  "Interrompi", // stop
  "Domande suggerite", // suggestions
  "Conversazione", // conversation
  "Tu", // you
  "Assistente", // assistant
  "Fonti", // sources
  "Apri la fonte", // openSource
  "Mostra la fonte {n}", // sourceMarker
  "Copia la risposta", // copy
  "Mostra l'intera sezione", // showSection
  "-", // minuteForms
  "Copiato", // copied
  "Utile", // helpful
  "Non utile", // notHelpful
  "Grazie per il tuo feedback", // feedbackThanks
  "Sto pensando…", // thinking
  "Caricamento…", // loading
  "Interrotto", // stopped
  "Nessuna risposta", // failed
  "Riprova", // retry
  "Stai inviando messaggi troppo in fretta. Puoi chiedere di nuovo tra {s} s.", // rateLimited
  "Stai inviando messaggi troppo in fretta. Puoi chiedere di nuovo tra circa {m}.", // rateLimitedMinutes
  "Questo assistente sta ancora imparando. Riprova tra poco.", // processing
  "Questa chat non è attiva su questo sito.", // originRefused
  "Questa chat non è disponibile.", // notFound
  "Sembra che tu sia offline. Controlla la connessione e riprova.", // offline
  "Impossibile raggiungere l’assistente in questo momento. Riprova tra poco.", // unreachable
  "Il servizio di risposta non è disponibile al momento. Riprova.", // upstream
  "Qualcosa è andato storto. Riprova.", // server
  "La risposta si è interrotta. Riprova.", // interrupted
  "Il messaggio è troppo lungo. Accorcialo, per favore.", // tooLong
  "Non è stato possibile inviare il tuo feedback.", // feedbackFailed
  "Contattaci", // contactUs
  "Non ne sono sicuro: questi articoli potrebbero aiutarti:", // uncertain
  "La tua e-mail", // email
  "Messaggio", // message
  "Grazie! Ti risponderemo via e-mail.", // contactSent
  "Inserisci un indirizzo e-mail valido.", // badEmail
  "Scrivi un messaggio.", // badMessage
  "Cosa non andava?", // whatWrong
  "Risposta sbagliata", // reasonWrong
  "Non ha risposto alla mia domanda", // reasonUnanswered
  "Non aggiornata", // reasonOutdated
  "Altro", // reasonOther
  "Nuovo messaggio", // newMessage
];

const nl: Row = [
  "Chat openen", // openChat
  "Chat sluiten", // closeChat
  "Sluiten", // close
  "Nieuw gesprek", // newConversation
  "Je vraag", // inputLabel
  "Stel een vraag…", // placeholder
  "Versturen", // send
  "Stoppen", // stop
  "Voorgestelde vragen", // suggestions
  "Gesprek", // conversation
  "Jij", // you
  "Assistent", // assistant
  "Bronnen", // sources
  "Bron openen", // openSource
  "Bron {n} tonen", // sourceMarker
  "Antwoord kopiëren", // copy
  "Hele sectie tonen", // showSection
  "-", // minuteForms
  "Gekopieerd", // copied
  "Nuttig", // helpful
  "Niet nuttig", // notHelpful
  "Bedankt voor je feedback", // feedbackThanks
  "Aan het nadenken…", // thinking
  "Laden…", // loading
  "Gestopt", // stopped
  "Niet beantwoord", // failed
  "Opnieuw proberen", // retry
  "Je verstuurt berichten te snel. Je kunt over {s} s weer iets vragen.", // rateLimited
  "Je verstuurt berichten te snel. Je kunt over ongeveer {m} weer iets vragen.", // rateLimitedMinutes
  "Deze assistent is nog aan het leren. Probeer het zo opnieuw.", // processing
  "Deze chat is niet ingeschakeld op deze website.", // originRefused
  "Deze chat is niet beschikbaar.", // notFound
  "Je lijkt offline te zijn. Controleer je verbinding en probeer het opnieuw.", // offline
  "De assistent is nu niet bereikbaar. Probeer het zo opnieuw.", // unreachable
  "De antwoorddienst is momenteel niet beschikbaar. Probeer het opnieuw.", // upstream
  "Er is iets misgegaan. Probeer het opnieuw.", // server
  "Het antwoord is onderbroken. Probeer het opnieuw.", // interrupted
  "Dit bericht is te lang. Maak het korter.", // tooLong
  "Je feedback kon niet worden verstuurd.", // feedbackFailed
  "Contact", // contactUs
  "Niet zeker — deze artikelen kunnen helpen:", // uncertain
  "Uw e-mailadres", // email
  "Bericht", // message
  "Bedankt! We antwoorden per e-mail.", // contactSent
  "Vul een geldig e-mailadres in.", // badEmail
  "Schrijf een bericht.", // badMessage
  "Wat was er mis?", // whatWrong
  "Verkeerd antwoord", // reasonWrong
  "Beantwoordde mijn vraag niet", // reasonUnanswered
  "Verouderd", // reasonOutdated
  "Anders", // reasonOther
  "Nieuw bericht", // newMessage
];

const pl: Row = [
  "Otwórz czat", // openChat
  "Zamknij czat", // closeChat
  "Zamknij", // close
  "Nowa rozmowa", // newConversation
  "Twoje pytanie", // inputLabel
  "Zadaj pytanie…", // placeholder
  "Wyślij", // send
  "Zatrzymaj", // stop
  "Proponowane pytania", // suggestions
  "Rozmowa", // conversation
  "Ty", // you
  "Asystent", // assistant
  "Źródła", // sources
  "Otwórz źródło", // openSource
  "Pokaż źródło {n}", // sourceMarker
  "Kopiuj odpowiedź", // copy
  "Pokaż całą sekcję", // showSection
  "minutę minuty minut", // minuteForms
  "Skopiowano", // copied
  "Pomocne", // helpful
  "Niepomocne", // notHelpful
  "Dziękujemy za opinię", // feedbackThanks
  "Myślę…", // thinking
  "Ładowanie…", // loading
  "Zatrzymano", // stopped
  "Brak odpowiedzi", // failed
  "Spróbuj ponownie", // retry
  "Wysyłasz wiadomości zbyt szybko. Możesz zapytać ponownie za {s} s.", // rateLimited
  "Wysyłasz wiadomości zbyt szybko. Możesz zapytać ponownie za mniej więcej {m}.", // rateLimitedMinutes
  "Ten asystent wciąż się uczy. Spróbuj ponownie za chwilę.", // processing
  "Ten czat nie jest włączony w tej witrynie.", // originRefused
  "Ten czat jest niedostępny.", // notFound
  "Wygląda na to, że jesteś offline. Sprawdź połączenie i spróbuj ponownie.", // offline
  "Nie można teraz połączyć się z asystentem. Spróbuj ponownie za chwilę.", // unreachable
  "Usługa odpowiedzi jest teraz niedostępna. Spróbuj ponownie.", // upstream
  "Coś poszło nie tak. Spróbuj ponownie.", // server
  "Odpowiedź została przerwana. Spróbuj ponownie.", // interrupted
  "Ta wiadomość jest za długa. Skróć ją.", // tooLong
  "Nie udało się wysłać opinii.", // feedbackFailed
  "Kontakt", // contactUs
  "Nie jestem pewien — te artykuły mogą pomóc:", // uncertain
  "Twój e-mail", // email
  "Wiadomość", // message
  "Dziękujemy! Odpowiemy e-mailem.", // contactSent
  "Podaj poprawny adres e-mail.", // badEmail
  "Napisz wiadomość.", // badMessage
  "Co było nie tak?", // whatWrong
  "Błędna odpowiedź", // reasonWrong
  "Nie odpowiedział na moje pytanie", // reasonUnanswered
  "Nieaktualne", // reasonOutdated
  "Inne", // reasonOther
  "Nowa wiadomość", // newMessage
];

const tr: Row = [
  "Sohbeti aç", // openChat
  "Sohbeti kapat", // closeChat
  "Kapat", // close
  "Yeni sohbet", // newConversation
  "Sorunuz", // inputLabel
  "Bir soru sorun…", // placeholder
  "Gönder", // send
  "Durdur", // stop
  "Önerilen sorular", // suggestions
  "Sohbet", // conversation
  "Siz", // you
  "Asistan", // assistant
  "Kaynaklar", // sources
  "Kaynağı aç", // openSource
  "{n} numaralı kaynağı göster", // sourceMarker
  "Yanıtı kopyala", // copy
  "Bölümün tamamını göster", // showSection
  "-", // minuteForms
  "Kopyalandı", // copied
  "Faydalı", // helpful
  "Faydalı değil", // notHelpful
  "Geri bildiriminiz için teşekkürler", // feedbackThanks
  "Düşünüyor…", // thinking
  "Yükleniyor…", // loading
  "Durduruldu", // stopped
  "Yanıtlanmadı", // failed
  "Tekrar dene", // retry
  "Çok hızlı mesaj gönderiyorsunuz. {s} sn sonra tekrar sorabilirsiniz.", // rateLimited
  "Çok hızlı mesaj gönderiyorsunuz. Yaklaşık {m} sonra tekrar sorabilirsiniz.", // rateLimitedMinutes
  "Bu asistan hâlâ öğreniyor. Lütfen birazdan tekrar deneyin.", // processing
  "Bu sohbet bu sitede etkin değil.", // originRefused
  "Bu sohbet kullanılamıyor.", // notFound
  "Çevrimdışı görünüyorsunuz. Bağlantınızı kontrol edip tekrar deneyin.", // offline
  "Asistana şu anda ulaşılamıyor. Lütfen birazdan tekrar deneyin.", // unreachable
  "Yanıt hizmeti şu anda kullanılamıyor. Lütfen tekrar deneyin.", // upstream
  "Bir şeyler ters gitti. Lütfen tekrar deneyin.", // server
  "Yanıt yarıda kesildi. Lütfen tekrar deneyin.", // interrupted
  "Bu mesaj çok uzun. Lütfen kısaltın.", // tooLong
  "Geri bildiriminiz gönderilemedi.", // feedbackFailed
  "Bize ulaşın", // contactUs
  "Emin değilim — bu makaleler yardımcı olabilir:", // uncertain
  "E-postanız", // email
  "Mesaj", // message
  "Teşekkürler! Size e-postayla döneceğiz.", // contactSent
  "Geçerli bir e-posta adresi girin.", // badEmail
  "Bir mesaj yazın.", // badMessage
  "Sorun neydi?", // whatWrong
  "Yanlış cevap", // reasonWrong
  "Soruma cevap vermedi", // reasonUnanswered
  "Güncel değil", // reasonOutdated
  "Diğer", // reasonOther
  "Yeni mesaj", // newMessage
];

const ru: Row = [
  "Открыть чат", // openChat
  "Закрыть чат", // closeChat
  "Закрыть", // close
  "Новый разговор", // newConversation
  "Ваш вопрос", // inputLabel
  "Задайте вопрос…", // placeholder
  "Отправить", // send
  "Остановить", // stop
  "Предлагаемые вопросы", // suggestions
  "Разговор", // conversation
  "Вы", // you
  "Ассистент", // assistant
  "Источники", // sources
  "Открыть источник", // openSource
  "Показать источник {n}", // sourceMarker
  "Копировать ответ", // copy
  "Показать весь раздел", // showSection
  "минуту минуты минут", // minuteForms
  "Скопировано", // copied
  "Полезно", // helpful
  "Бесполезно", // notHelpful
  "Спасибо за отзыв", // feedbackThanks
  "Думаю…", // thinking
  "Загрузка…", // loading
  "Остановлено", // stopped
  "Нет ответа", // failed
  "Повторить", // retry
  "Вы отправляете сообщения слишком быстро. Спросите снова через {s} с.", // rateLimited
  "Вы отправляете сообщения слишком быстро. Спросите снова примерно через {m}.", // rateLimitedMinutes
  "Этот ассистент ещё обучается. Попробуйте чуть позже.", // processing
  "Этот чат не включён на этом сайте.", // originRefused
  "Этот чат недоступен.", // notFound
  "Похоже, вы не в сети. Проверьте подключение и попробуйте снова.", // offline
  "Сейчас не удаётся связаться с ассистентом. Попробуйте ещё раз чуть позже.", // unreachable
  "Сервис ответов сейчас недоступен. Попробуйте снова.", // upstream
  "Что-то пошло не так. Попробуйте снова.", // server
  "Ответ прервался. Попробуйте снова.", // interrupted
  "Сообщение слишком длинное. Сократите его.", // tooLong
  "Не удалось отправить отзыв.", // feedbackFailed
  "Связаться с нами", // contactUs
  "Не уверен — возможно, помогут эти статьи:", // uncertain
  "Ваш e-mail", // email
  "Сообщение", // message
  "Спасибо! Мы ответим по e-mail.", // contactSent
  "Введите корректный адрес e-mail.", // badEmail
  "Напишите сообщение.", // badMessage
  "Что было не так?", // whatWrong
  "Неверный ответ", // reasonWrong
  "Не ответил на мой вопрос", // reasonUnanswered
  "Устарело", // reasonOutdated
  "Другое", // reasonOther
  "Новое сообщение", // newMessage
];

const uk: Row = [
  "Відкрити чат", // openChat
  "Закрити чат", // closeChat
  "Закрити", // close
  "Нова розмова", // newConversation
  "Ваше запитання", // inputLabel
  "Поставте запитання…", // placeholder
  "Надіслати", // send
  "Зупинити", // stop
  "Запропоновані запитання", // suggestions
  "Розмова", // conversation
  "Ви", // you
  "Асистент", // assistant
  "Джерела", // sources
  "Відкрити джерело", // openSource
  "Показати джерело {n}", // sourceMarker
  "Копіювати відповідь", // copy
  "Показати весь розділ", // showSection
  "хвилину хвилини хвилин", // minuteForms
  "Скопійовано", // copied
  "Корисно", // helpful
  "Некорисно", // notHelpful
  "Дякуємо за відгук", // feedbackThanks
  "Думаю…", // thinking
  "Завантаження…", // loading
  "Зупинено", // stopped
  "Немає відповіді", // failed
  "Повторити", // retry
  "Ви надсилаєте повідомлення надто швидко. Запитайте знову через {s} с.", // rateLimited
  "Ви надсилаєте повідомлення надто швидко. Запитайте знову приблизно через {m}.", // rateLimitedMinutes
  "Цей асистент ще навчається. Спробуйте трохи згодом.", // processing
  "Цей чат не ввімкнено на цьому сайті.", // originRefused
  "Цей чат недоступний.", // notFound
  "Схоже, ви не в мережі. Перевірте з’єднання і спробуйте знову.", // offline
  "Зараз не вдається зв’язатися з асистентом. Спробуйте ще раз трохи згодом.", // unreachable
  "Сервіс відповідей зараз недоступний. Спробуйте знову.", // upstream
  "Щось пішло не так. Спробуйте знову.", // server
  "Відповідь перервалася. Спробуйте знову.", // interrupted
  "Повідомлення задовге. Скоротіть його.", // tooLong
  "Не вдалося надіслати відгук.", // feedbackFailed
  "Зв’язатися з нами", // contactUs
  "Не впевнений — можливо, допоможуть ці статті:", // uncertain
  "Ваш e-mail", // email
  "Повідомлення", // message
  "Дякуємо! Ми відповімо електронною поштою.", // contactSent
  "Введіть правильну адресу e-mail.", // badEmail
  "Напишіть повідомлення.", // badMessage
  "Що було не так?", // whatWrong
  "Неправильна відповідь", // reasonWrong
  "Не відповів на моє запитання", // reasonUnanswered
  "Застаріло", // reasonOutdated
  "Інше", // reasonOther
  "Нове повідомлення", // newMessage
];

const hi: Row = [
  "चैट खोलें", // openChat
  "चैट बंद करें", // closeChat
  "बंद करें", // close
  "नई बातचीत", // newConversation
  "आपका प्रश्न", // inputLabel
  "कोई प्रश्न पूछें…", // placeholder
  "भेजें", // send
  "रोकें", // stop
  "सुझाए गए प्रश्न", // suggestions
  "बातचीत", // conversation
  "आप", // you
  "सहायक", // assistant
  "स्रोत", // sources
  "स्रोत खोलें", // openSource
  "स्रोत {n} दिखाएँ", // sourceMarker
  "उत्तर कॉपी करें", // copy
  "पूरा खंड दिखाएँ", // showSection
  "-", // minuteForms
  "कॉपी हो गया", // copied
  "उपयोगी", // helpful
  "उपयोगी नहीं", // notHelpful
  "आपकी प्रतिक्रिया के लिए धन्यवाद", // feedbackThanks
  "सोच रहा है…", // thinking
  "लोड हो रहा है…", // loading
  "रोका गया", // stopped
  "उत्तर नहीं मिला", // failed
  "फिर से कोशिश करें", // retry
  "आप बहुत जल्दी-जल्दी संदेश भेज रहे हैं। {s} सेकंड बाद फिर पूछें।", // rateLimited
  "आप बहुत जल्दी-जल्दी संदेश भेज रहे हैं। लगभग {m} बाद फिर पूछें।", // rateLimitedMinutes
  "यह सहायक अभी सीख रहा है। कृपया थोड़ी देर में फिर कोशिश करें।", // processing
  "यह चैट इस साइट पर सक्षम नहीं है।", // originRefused
  "यह चैट उपलब्ध नहीं है।", // notFound
  "लगता है आप ऑफ़लाइन हैं। अपना कनेक्शन जाँचें और फिर कोशिश करें।", // offline
  "अभी सहायक से संपर्क नहीं हो पा रहा है। थोड़ी देर में फिर कोशिश करें।", // unreachable
  "उत्तर सेवा अभी उपलब्ध नहीं है। कृपया फिर कोशिश करें।", // upstream
  "कुछ गलत हो गया। कृपया फिर कोशिश करें।", // server
  "उत्तर बीच में रुक गया। कृपया फिर कोशिश करें।", // interrupted
  "संदेश बहुत लंबा है। कृपया इसे छोटा करें।", // tooLong
  "आपकी प्रतिक्रिया भेजी नहीं जा सकी।", // feedbackFailed
  "संपर्क करें", // contactUs
  "पक्का नहीं — ये लेख मदद कर सकते हैं:", // uncertain
  "आपका ईमेल", // email
  "संदेश", // message
  "धन्यवाद! हम ईमेल से जवाब देंगे।", // contactSent
  "मान्य ईमेल पता दर्ज करें।", // badEmail
  "संदेश लिखें।", // badMessage
  "क्या गलत था?", // whatWrong
  "गलत जवाब", // reasonWrong
  "मेरे सवाल का जवाब नहीं दिया", // reasonUnanswered
  "पुरानी जानकारी", // reasonOutdated
  "अन्य", // reasonOther
  "नया संदेश", // newMessage
];

const zh: Row = [
  "打开聊天", // openChat
  "关闭聊天", // closeChat
  "关闭", // close
  "新对话", // newConversation
  "你的问题", // inputLabel
  "提个问题…", // placeholder
  "发送", // send
  "停止", // stop
  "推荐问题", // suggestions
  "对话", // conversation
  "你", // you
  "助手", // assistant
  "来源", // sources
  "打开来源", // openSource
  "显示来源 {n}", // sourceMarker
  "复制回答", // copy
  "显示整个章节", // showSection
  "-", // minuteForms
  "已复制", // copied
  "有帮助", // helpful
  "没帮助", // notHelpful
  "感谢你的反馈", // feedbackThanks
  "思考中…", // thinking
  "加载中…", // loading
  "已停止", // stopped
  "未回答", // failed
  "重试", // retry
  "你发送消息太快了。请在 {s} 秒后再问。", // rateLimited
  "你发送消息太快了。请在大约 {m}后再问。", // rateLimitedMinutes
  "这个助手还在学习中，请稍后再试。", // processing
  "此网站未启用该聊天。", // originRefused
  "该聊天不可用。", // notFound
  "你似乎已离线。请检查网络连接后重试。", // offline
  "暂时无法连接到助手。请稍后再试。", // unreachable
  "回答服务暂时不可用，请重试。", // upstream
  "出错了，请重试。", // server
  "回答被中断，请重试。", // interrupted
  "消息太长，请缩短后再发。", // tooLong
  "无法发送你的反馈。", // feedbackFailed
  "联系我们", // contactUs
  "不确定——这些文章可能有帮助：", // uncertain
  "您的邮箱", // email
  "留言", // message
  "谢谢！我们会通过邮件回复您。", // contactSent
  "请输入有效的邮箱地址。", // badEmail
  "请填写留言。", // badMessage
  "哪里有问题？", // whatWrong
  "回答错误", // reasonWrong
  "没有回答我的问题", // reasonUnanswered
  "内容过时", // reasonOutdated
  "其他", // reasonOther
  "新消息", // newMessage
];

const ja: Row = [
  "チャットを開く", // openChat
  "チャットを閉じる", // closeChat
  "閉じる", // close
  "新しい会話", // newConversation
  "質問", // inputLabel
  "質問を入力…", // placeholder
  "送信", // send
  "停止", // stop
  "おすすめの質問", // suggestions
  "会話", // conversation
  "あなた", // you
  "アシスタント", // assistant
  "出典", // sources
  "出典を開く", // openSource
  "出典 {n} を表示", // sourceMarker
  "回答をコピー", // copy
  "セクション全体を表示", // showSection
  "-", // minuteForms
  "コピーしました", // copied
  "役に立った", // helpful
  "役に立たなかった", // notHelpful
  "フィードバックありがとうございます", // feedbackThanks
  "考え中…", // thinking
  "読み込み中…", // loading
  "停止しました", // stopped
  "回答できませんでした", // failed
  "再試行", // retry
  "メッセージの送信が速すぎます。{s} 秒後にもう一度お試しください。", // rateLimited
  "メッセージの送信が速すぎます。約 {m}後にもう一度お試しください。", // rateLimitedMinutes
  "このアシスタントはまだ学習中です。しばらくしてからお試しください。", // processing
  "このサイトではこのチャットは有効になっていません。", // originRefused
  "このチャットは利用できません。", // notFound
  "オフラインのようです。接続を確認してもう一度お試しください。", // offline
  "現在アシスタントに接続できません。しばらくしてからもう一度お試しください。", // unreachable
  "回答サービスは現在利用できません。もう一度お試しください。", // upstream
  "問題が発生しました。もう一度お試しください。", // server
  "回答が中断されました。もう一度お試しください。", // interrupted
  "メッセージが長すぎます。短くしてください。", // tooLong
  "フィードバックを送信できませんでした。", // feedbackFailed
  "お問い合わせ", // contactUs
  "確かではありません — これらの記事が役立つかもしれません：", // uncertain
  "メールアドレス", // email
  "メッセージ", // message
  "ありがとうございます。メールでご連絡します。", // contactSent
  "有効なメールアドレスを入力してください。", // badEmail
  "メッセージを入力してください。", // badMessage
  "何が問題でしたか？", // whatWrong
  "回答が間違っている", // reasonWrong
  "質問に答えていない", // reasonUnanswered
  "情報が古い", // reasonOutdated
  "その他", // reasonOther
  "新しいメッセージ", // newMessage
];

const ko: Row = [
  "채팅 열기", // openChat
  "채팅 닫기", // closeChat
  "닫기", // close
  "새 대화", // newConversation
  "질문", // inputLabel
  "질문을 입력하세요…", // placeholder
  "보내기", // send
  "중지", // stop
  "추천 질문", // suggestions
  "대화", // conversation
  "나", // you
  "어시스턴트", // assistant
  "출처", // sources
  "출처 열기", // openSource
  "출처 {n} 보기", // sourceMarker
  "답변 복사", // copy
  "전체 섹션 보기", // showSection
  "-", // minuteForms
  "복사됨", // copied
  "도움이 됨", // helpful
  "도움이 안 됨", // notHelpful
  "의견을 보내 주셔서 감사합니다", // feedbackThanks
  "생각 중…", // thinking
  "불러오는 중…", // loading
  "중지됨", // stopped
  "답변하지 못함", // failed
  "다시 시도", // retry
  "메시지를 너무 빨리 보내고 있습니다. {s}초 후에 다시 질문하세요.", // rateLimited
  "메시지를 너무 빨리 보내고 있습니다. 약 {m} 후에 다시 질문하세요.", // rateLimitedMinutes
  "이 어시스턴트는 아직 학습 중입니다. 잠시 후 다시 시도하세요.", // processing
  "이 사이트에서는 이 채팅이 활성화되어 있지 않습니다.", // originRefused
  "이 채팅을 사용할 수 없습니다.", // notFound
  "오프라인 상태인 것 같습니다. 연결을 확인하고 다시 시도하세요.", // offline
  "지금은 어시스턴트에 연결할 수 없습니다. 잠시 후 다시 시도하세요.", // unreachable
  "지금은 답변 서비스를 사용할 수 없습니다. 다시 시도하세요.", // upstream
  "문제가 발생했습니다. 다시 시도하세요.", // server
  "답변이 중단되었습니다. 다시 시도하세요.", // interrupted
  "메시지가 너무 깁니다. 줄여 주세요.", // tooLong
  "의견을 보내지 못했습니다.", // feedbackFailed
  "문의하기", // contactUs
  "확실하지 않습니다 — 이 문서들이 도움이 될 수 있습니다:", // uncertain
  "이메일", // email
  "메시지", // message
  "감사합니다! 이메일로 답변드리겠습니다.", // contactSent
  "올바른 이메일 주소를 입력하세요.", // badEmail
  "메시지를 입력하세요.", // badMessage
  "무엇이 문제였나요?", // whatWrong
  "틀린 답변", // reasonWrong
  "질문에 답하지 않음", // reasonUnanswered
  "오래된 정보", // reasonOutdated
  "기타", // reasonOther
  "새 메시지", // newMessage
];

/** A language's table from its row. */
const table = (row: Row): Table => Object.fromEntries(keys.map((key, i) => [key, row[i]])) as Table;

export const tables: Record<string, Table> = {
  en,
  ar: table(ar),
  he: table(he),
  es: table(es),
  de: table(de),
  fr: table(fr),
  pt: table(pt),
  it: table(it),
  nl: table(nl),
  pl: table(pl),
  tr: table(tr),
  ru: table(ru),
  uk: table(uk),
  hi: table(hi),
  zh: table(zh),
  ja: table(ja),
  ko: table(ko),
};

/** A translator with its table at hand (tests and tools; the panel loads this module lazily). */
export function createTranslator(lang: string): Translator {
  const table = tables[lang] ?? en;
  return translatorFor(lang in tables ? lang : "en", () => table);
}
