import { describe, expect, it } from "vitest";
import { detectAnswerType, detectQuestionShape, matchesAnswerType } from "./question-type.ts";

describe("detectAnswerType", () => {
  it.each([
    ["How many devices can I use?", "number"],
    ["¿Cuántos dispositivos puedo usar?", "number"],
    ["Wie viele Geräte kann ich nutzen?", "number"],
    ["Сколько стоит подписка?", "number"],
    ["كم سعر الاشتراك؟", "number"],
    ["सदस्यता कितने की है?", "number"],
    ["订阅多少钱？", "number"],
    ["When does the sale end?", "date"],
    ["¿Cuándo termina la oferta?", "date"],
    ["In welchem Jahr starb Tesla?", "date"],
    ["Quand se termine l'offre ?", "date"],
    ["متى تنتهي العروض؟", "date"],
    ["セールはいつ終わりますか？", "date"],
    ["Who founded the company?", "person"],
    ["Wer hat die Firma gegründet?", "person"],
    ["¿Quién fundó la empresa?", "person"],
    ["Кто основал компанию?", "person"],
    ["من أسس الشركة؟", "person"],
    ["Where is the office?", "place"],
    ["Où est le bureau ?", "place"],
    ["Wo ist das Büro?", "place"],
    ["办公室在哪里？", "place"],
    ["Can I pay by card?", "other"],
    ["Wie ändere ich mein Passwort?", "other"],
    ["Você pode me ajudar ou não?", "other"],
  ])("reads %s as asking for a %s", (question, type) => {
    expect(detectAnswerType(question)).toBe(type);
  });
});

describe("matchesAnswerType", () => {
  const noNames = () => 0;
  it("counts digits of any script as a number and a year as a date", () => {
    expect(matchesAnswerType("يصل خلال ٣ أيام", "number", noNames)).toBe(true);
    expect(matchesAnswerType("Tesla starb 1943.", "date", noNames)).toBe(true);
    expect(matchesAnswerType("Call us any time.", "number", noNames)).toBe(false);
  });
});

describe("detectQuestionShape", () => {
  it.each([
    ["How do I reset my password?", "procedure"],
    ["¿Cómo restablezco mi contraseña?", "procedure"],
    ["Wie ändere ich mein Passwort?", "procedure"],
    ["Comment changer mon mot de passe ?", "procedure"],
    ["Comment puis-je changer mon mot de passe ?", "procedure"],
    ["Как изменить пароль?", "procedure"],
    ["كيف أغير كلمة المرور؟", "procedure"],
    ["如何修改密码？", "procedure"],
    ["Can I pay by card?", "yesno"],
    ["What information is sent when the app crashes?", "enumeration"],
    ["What does the subscription include?", "enumeration"],
    ["Who do I contact about a refund?", "contact"],
    ["Wie alt ist die Firma?", "other"],
  ])("reads %s as %s", (question, shape) => {
    expect(detectQuestionShape(question)).toBe(shape);
  });
});
