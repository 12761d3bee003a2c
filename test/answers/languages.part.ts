import { fallbackMessages } from "@lore/server/text/messages.ts";
import type { Agent, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, type Entry, readyTextSource } from "../ingestion/source-helpers.ts";

interface HelpCenter {
  language: "es" | "de" | "ja" | "zh";
  articles: Entry[];
  /** A plain question, the title of the article that answers it and a fact the answer quotes. */
  questions: { question: string; article: string; fact: string }[];
  unanswerable: string;
}

const helpCenters: HelpCenter[] = [
  {
    language: "es",
    articles: [
      {
        title: "Restablecer la contraseña",
        content:
          "Si olvidaste tu contraseña, abre la página de inicio de sesión y pulsa «¿Olvidaste tu contraseña?». Te enviaremos un correo con un enlace para crear una contraseña nueva. El enlace caduca a las 24 horas.",
      },
      {
        title: "Métodos de pago",
        content:
          "Aceptamos tarjetas de crédito Visa y Mastercard, PayPal y transferencia bancaria. Los pagos con tarjeta se cobran al confirmar el pedido.",
      },
      {
        title: "Envíos y entregas",
        content:
          "Los pedidos se envían en un plazo de dos días laborables. La entrega en la península tarda entre tres y cinco días. El envío es gratuito a partir de 50 euros.",
      },
    ],
    questions: [
      { question: "¿Cómo restablezco mi contraseña?", article: "Restablecer la contraseña", fact: "enlace" },
      { question: "¿Qué métodos de pago aceptan?", article: "Métodos de pago", fact: "PayPal" },
      { question: "¿Cuánto tarda la entrega?", article: "Envíos y entregas", fact: "cinco días" },
    ],
    unanswerable: "¿Tienen una tienda física en Marte?",
  },
  {
    language: "de",
    articles: [
      {
        title: "Passwort zurücksetzen",
        content:
          "Wenn Sie Ihr Passwort vergessen haben, öffnen Sie die Anmeldeseite und klicken Sie auf „Passwort vergessen“. Sie erhalten eine E-Mail mit einem Link, über den Sie ein neues Passwort festlegen. Der Link ist 24 Stunden gültig.",
      },
      {
        title: "Rechnungen herunterladen",
        content:
          "Alle Rechnungen finden Sie im Kundenkonto unter „Bestellungen“. Jede Rechnung lässt sich dort als PDF herunterladen.",
      },
      {
        title: "Abonnement kündigen",
        content:
          "Sie können Ihr Abonnement jederzeit in den Kontoeinstellungen kündigen. Die Kündigung wird zum Ende des laufenden Abrechnungszeitraums wirksam.",
      },
    ],
    questions: [
      {
        question: "Ich habe mein Passwort vergessen. Was nun?",
        article: "Passwort zurücksetzen",
        fact: "Anmeldeseite",
      },
      {
        question: "Wo finde ich meine Rechnungen?",
        article: "Rechnungen herunterladen",
        fact: "Bestellungen",
      },
      {
        question: "Wie kann ich mein Abonnement kündigen?",
        article: "Abonnement kündigen",
        fact: "Kontoeinstellungen",
      },
    ],
    unanswerable: "Verkaufen Sie auch Fahrräder für Hunde?",
  },
  {
    language: "ja",
    articles: [
      {
        title: "パスワードの再設定",
        content:
          "パスワードを忘れた場合は、ログイン画面の「パスワードをお忘れですか」をクリックしてください。登録したメールアドレスに再設定用のリンクが届きます。リンクの有効期限は24時間です。",
      },
      {
        title: "お支払い方法",
        content:
          "お支払いにはクレジットカード、コンビニ払い、銀行振込をご利用いただけます。クレジットカードはご注文の確定時に決済されます。",
      },
      {
        title: "配送について",
        content:
          "ご注文の商品は2営業日以内に発送します。お届けまでは通常3〜5日かかります。送料は5000円以上で無料です。",
      },
    ],
    questions: [
      {
        question: "パスワードを忘れました。どうすればいいですか？",
        article: "パスワードの再設定",
        fact: "リンク",
      },
      { question: "どんな支払い方法がありますか？", article: "お支払い方法", fact: "銀行振込" },
      { question: "送料はいくらですか？", article: "配送について", fact: "5000円" },
    ],
    unanswerable: "火星に店舗はありますか？",
  },
  {
    language: "zh",
    articles: [
      {
        title: "重置密码",
        content:
          "如果您忘记了密码，请在登录页面点击“忘记密码”。我们会向您的注册邮箱发送一封包含重置链接的邮件。该链接在24小时内有效。",
      },
      {
        title: "支付方式",
        content: "我们支持信用卡、支付宝和微信支付。信用卡将在确认订单时扣款。",
      },
      {
        title: "配送说明",
        content: "订单将在两个工作日内发货。送达通常需要三到五天。订单满200元免运费。",
      },
    ],
    questions: [
      { question: "我忘记密码了怎么办？", article: "重置密码", fact: "链接" },
      { question: "你们支持哪些支付方式？", article: "支付方式", fact: "支付宝" },
      { question: "运费怎么算？", article: "配送说明", fact: "200元" },
    ],
    unanswerable: "你们在火星上有门店吗？",
  },
];

let server: TestServer;
let token: string;
const agents = new Map<string, Agent>();

const ask = (agent: Agent, message: string) =>
  call<QueryResponse>(server, "POST", `/agents/${agent.id}/query/`, token, { message });

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
  for (const center of helpCenters) {
    const source = await readyTextSource(server, token, `Help ${center.language}`, center.articles);
    agents.set(
      center.language,
      await createAgent(server, token, { name: center.language, dataSourceIds: [source.id] }),
    );
  }
});

afterAll(async () => {
  await server?.close();
});

describe.each(helpCenters)("a $language help center", (center) => {
  it.each(center.questions)(
    "answers “$question” from the right article",
    async ({ question, article, fact }) => {
      const agent = agents.get(center.language) as Agent;
      const res = await ask(agent, question);
      expect(res.status).toBe(200);
      expect(res.body.sources[0]?.title).toBe(article);
      expect(res.body.response).toContain(fact);
    },
  );

  it("falls back in the question's language when the articles do not say", async () => {
    const agent = agents.get(center.language) as Agent;
    const res = await ask(agent, center.unanswerable);
    expect(res.status).toBe(200);
    expect(res.body.response).toBe(fallbackMessages[center.language]);
    expect(res.body.sources).toEqual([]);
  });
});

describe("the fallback message", () => {
  it("is sent verbatim when the agent has its own", async () => {
    const source = await readyTextSource(server, token, "Help es custom", helpCenters[0]?.articles ?? []);
    const agent = await createAgent(server, token, {
      name: "custom fallback",
      dataSourceIds: [source.id],
      fallbackMessage: "Lo siento, no lo sé.",
    });
    const res = await ask(agent, "¿Tienen una tienda física en Marte?");
    expect(res.body.response).toBe("Lo siento, no lo sé.");
  });

  it("follows the agent's language setting, whatever the question's", async () => {
    const source = await readyTextSource(server, token, "Help es language", helpCenters[0]?.articles ?? []);
    const agent = await createAgent(server, token, {
      name: "german",
      dataSourceIds: [source.id],
      language: "de",
    });
    expect(agent.language).toBe("de");
    const res = await ask(agent, "Do you have a store on Mars?");
    expect(res.body.response).toBe(fallbackMessages.de);
    const patched = await call<Agent>(server, "PATCH", `/agents/${agent.id}/`, token, { language: null });
    expect(patched.body.language).toBeNull();
    expect((await ask(agent, "Do you have a store on Mars?")).body.response).toBe(fallbackMessages.en);
  });

  it("refuses a language Lore does not answer in", async () => {
    const res = await call<{ error: string }>(server, "POST", "/agents/", token, {
      name: "klingon",
      language: "tlh",
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("validation_error");
  });

  it("stays English for an English question", async () => {
    const res = await ask(agents.get("es") as Agent, "Do you have a store on Mars?");
    expect(res.body.response).toBe(fallbackMessages.en);
  });
});
